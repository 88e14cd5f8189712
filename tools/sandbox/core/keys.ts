import { generateKeyPair, type KeyObject } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadOrCreateSigningKey } from '../../common/signing-key-file.ts';
import { keyFingerprint } from '../../../src/receiver/signature.ts';

interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/**
 * The sandbox's signing key. Kept in a PEM file so a receiver that cached
 * the public key keeps verifying across runs; `rotate()` makes a new pair, overwrites the file
 * and is served by the public-key endpoint from then on, as a real key rotation would be.
 */
export interface SandboxKeys {
  current(): KeyPair;
  /** SHA-256 of the public key's SPKI DER, as the receiver logs it. */
  fingerprint(): string;
  rotate(): Promise<KeyPair>;
  origin: string;
}

const generate = promisify(generateKeyPair);

export async function createSandboxKeys(options: { keyFile?: string }): Promise<SandboxKeys> {
  const { keyFile } = options;
  const loaded = await loadOrCreateSigningKey({
    ...(keyFile !== undefined && { keyFile, saveKey: true }),
  });
  let pair: KeyPair = { privateKey: loaded.privateKey, publicKey: loaded.publicKey };
  return {
    current: () => pair,
    fingerprint: () => keyFingerprint(pair.publicKey),
    origin: keyFile === undefined ? 'generated (not saved)' : `${loaded.origin} ${keyFile}`,
    async rotate() {
      const next = await generate('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
      if (keyFile !== undefined) await savePrivateKey(keyFile, next.privateKey);
      pair = next;
      return pair;
    },
  };
}

/** Written beside the old file, then renamed over it: a crash never leaves half a key. */
async function savePrivateKey(keyFile: string, privateKey: KeyObject): Promise<void> {
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  await mkdir(path.dirname(keyFile), { recursive: true });
  const temporary = `${keyFile}.${process.pid}.tmp`;
  await writeFile(temporary, pem, { mode: 0o600 });
  await rename(temporary, keyFile);
}
