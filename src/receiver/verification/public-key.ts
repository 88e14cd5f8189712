import { createHash } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { KeyFormatError } from './key-format-error.ts';
import { publicKeyFromHexDer } from './public-key-der.ts';
import { publicKeyFromJwk } from './public-key-jwk.ts';
import { publicKeyFromPem } from './public-key-pem.ts';

/**
 * Turns the platform's public key, in any form an operator might paste or the key endpoint might
 * serve, into a Node KeyObject fit for RSA PKCS#1 v1.5 verification.
 *
 * Accepted: hex DER PKCS#1 RSAPublicKey (what the platform serves), hex DER SPKI, PEM
 * `PUBLIC KEY`, `RSA PUBLIC KEY` or `CERTIFICATE`, and a JWK as JSON. Private keys are refused
 * in every form: a private key in configuration is a leak, not a verification key.
 */

export { KeyFormatError } from './key-format-error.ts';
export type { KeyFormatProblem } from './key-format-error.ts';

const MIN_MODULUS_BITS = 2048;

/** Rejects with a KeyFormatError saying what was wrong. */
export async function parsePublicKey(text: string): Promise<KeyObject> {
  const key = await parseAnyForm(text.trim());
  // rsa-pss keys are refused too: they cannot verify the platform's PKCS#1 v1.5 signatures.
  if (key.asymmetricKeyType !== 'rsa') {
    throw new KeyFormatError(
      'not-rsa',
      `signing key is a ${key.asymmetricKeyType ?? 'unknown'} key, not RSA`,
    );
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_MODULUS_BITS) {
    throw new KeyFormatError(
      'too-small',
      `signing key modulus is ${bits} bits; at least ${MIN_MODULUS_BITS} required`,
    );
  }
  return key;
}

/** Hex SHA-256 of the key's SPKI DER: identifies a key in logs and tells a rotated key apart. */
export function keyFingerprint(key: KeyObject): string {
  return createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

function parseAnyForm(trimmed: string): Promise<KeyObject> | KeyObject {
  if (trimmed.startsWith('{')) return publicKeyFromJwk(trimmed);
  if (trimmed.includes('-----BEGIN')) return publicKeyFromPem(trimmed);
  const hex = trimmed.replace(/^0x/i, '').replace(/\s+/g, '');
  if (hex.length > 0 && /^[0-9a-f]+$/i.test(hex)) return publicKeyFromHexDer(hex);
  throw new KeyFormatError(
    'unrecognised',
    `signing key is not hex DER, PEM or JWK JSON (${trimmed.length} characters)`,
  );
}
