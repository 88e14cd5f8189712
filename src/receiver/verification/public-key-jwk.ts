import { createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { loadJose } from './load-jose.ts';
import { KeyFormatError } from './key-format-error.ts';

/** A JWK given as JSON text. Checked by hand first so a private or non-RSA JWK is named as such. */

// RFC 7518 private members: d and the CRT values (RSA, EC, OKP), k (a symmetric secret).
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export async function publicKeyFromJwk(text: string): Promise<KeyObject> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new KeyFormatError('malformed', 'signing key looks like JSON but does not parse');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new KeyFormatError('malformed', 'signing key JSON is not a JWK object');
  }
  const members = parsed as Record<string, unknown>;
  if ('keys' in members) {
    throw new KeyFormatError('malformed', 'signing key JSON is a JWK Set; give the one JWK');
  }
  if (PRIVATE_MEMBERS.some((name) => name in members)) {
    throw new KeyFormatError(
      'private-key',
      'signing key JWK holds private members; give the public key',
    );
  }
  if (typeof members['kty'] !== 'string') {
    throw new KeyFormatError('malformed', 'signing key JSON has no "kty": not a JWK');
  }
  if (members['kty'] !== 'RSA') {
    throw new KeyFormatError(
      'not-rsa',
      `signing key JWK has kty ${JSON.stringify(members['kty']).slice(0, 20)}, not "RSA"`,
    );
  }
  if (typeof members['n'] !== 'string' || typeof members['e'] !== 'string') {
    throw new KeyFormatError('malformed', 'signing key JWK lacks the string members "n" and "e"');
  }
  try {
    const jwk = await (await loadJose()).JWK.asKey(members, 'json');
    return createPublicKey(jwk.toPEM(false));
  } catch {
    throw new KeyFormatError('malformed', 'signing key JWK could not be read');
  }
}
