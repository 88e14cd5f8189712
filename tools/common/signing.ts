import { generateKeyPair, sign, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

/**
 * Signing the way the platform does, for everything that stands in for it (the sandbox and its
 * `simulate` command, the fixture generator, the load-balancer proof, tests): RSA PKCS#1 v1.5
 * over SHA-256 of the exact body bytes, base64, sent as `Verification-Signature`.
 */

export interface SigningKeyPair {
  publicKey: KeyObject;
  privateKey: KeyObject;
}

const generateKeyPairAsync = promisify(generateKeyPair);

/** A fresh RSA pair (2048 bits, e = 65537, as the platform's). Takes tens of milliseconds. */
export async function generateSigningKeyPair(modulusLength = 2048): Promise<SigningKeyPair> {
  return generateKeyPairAsync('rsa', { modulusLength, publicExponent: 0x10001 });
}

/** The `Verification-Signature` header value for `body` (a string is taken as UTF-8). */
export function signBody(body: Buffer | string, privateKey: KeyObject): string {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return sign('sha256', bytes, privateKey).toString('base64');
}
