import type { KeyObject } from 'node:crypto';

/** The form the platform's key endpoint serves: hex DER PKCS#1 RSAPublicKey, upper case. */
export function providerHex(publicKey: KeyObject): string {
  return publicKey.export({ type: 'pkcs1', format: 'der' }).toString('hex').toUpperCase();
}
