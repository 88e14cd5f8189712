import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generateSigningKeyPair } from './signing.ts';

export interface SimulatorKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Where it came from, for the start-up line. */
  origin: 'generated' | 'loaded' | 'generated and saved';
}

/**
 * The simulated platform's RSA-2048 pair: generated for this run, or loaded from a PEM private
 * key file so a receiver that cached the key keeps verifying across runs of the sandbox and
 * its `simulate` command (`npm run sandbox -- simulate`).
 */
export async function loadOrCreateSigningKey(options: {
  keyFile?: string;
  saveKey?: boolean;
}): Promise<SimulatorKey> {
  const { keyFile } = options;
  if (keyFile !== undefined && existsSync(keyFile)) {
    const privateKey = createPrivateKey(await readFile(keyFile, 'utf8'));
    if (privateKey.asymmetricKeyType !== 'rsa')
      throw new Error(`${keyFile} is not an RSA private key`);
    return { privateKey, publicKey: createPublicKey(privateKey), origin: 'loaded' };
  }
  if (keyFile !== undefined && !options.saveKey) {
    throw new Error(`${keyFile} does not exist (add --save-key to generate one there)`);
  }
  const pair = await generateSigningKeyPair();
  if (keyFile === undefined) return { ...pair, origin: 'generated' };
  const pem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  await mkdir(path.dirname(keyFile), { recursive: true });
  await writeFile(keyFile, pem, { mode: 0o600, flag: 'wx' });
  return { ...pair, origin: 'generated and saved' };
}
