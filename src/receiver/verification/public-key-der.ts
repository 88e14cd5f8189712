import { createPrivateKey, createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { KeyFormatError } from './key-format-error.ts';

/**
 * DER-encoded public keys. Node's `createPublicKey` quietly derives a public key from a DER
 * PKCS#1 *private* key, so private material is looked for first and refused.
 */

export function publicKeyFromHexDer(hex: string): KeyObject {
  if (hex.length % 2 !== 0) {
    throw new KeyFormatError('malformed', 'hex signing key has an odd number of digits');
  }
  const der = Buffer.from(hex, 'hex');
  refusePrivateDer(der);
  // The platform serves PKCS#1; SPKI is what most tools export. Neither parses as the other.
  for (const type of ['pkcs1', 'spki'] as const) {
    try {
      return createPublicKey({ key: der, format: 'der', type });
    } catch {
      // try the next encoding
    }
  }
  throw new KeyFormatError(
    'malformed',
    'hex signing key is neither a DER PKCS#1 RSAPublicKey nor a DER SubjectPublicKeyInfo',
  );
}

/** `what` names the input in the error, e.g. `PEM "PUBLIC KEY"`. */
export function publicKeyFromDer(der: Buffer, type: 'pkcs1' | 'spki', what: string): KeyObject {
  refusePrivateDer(der);
  try {
    return createPublicKey({ key: der, format: 'der', type });
  } catch {
    throw new KeyFormatError('malformed', `signing key ${what} does not hold a readable key`);
  }
}

function refusePrivateDer(der: Buffer): void {
  for (const type of ['pkcs1', 'pkcs8'] as const) {
    try {
      createPrivateKey({ key: der, format: 'der', type });
    } catch {
      continue;
    }
    throw new KeyFormatError('private-key', 'signing key is a private key; give the public key');
  }
}
