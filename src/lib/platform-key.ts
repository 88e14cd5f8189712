import type { KeyObject } from 'node:crypto';

/** Where the platform serves its signing key: `{base}/public/v1/certificate/public-key`. */
export const PUBLIC_KEY_PATH = '/public/v1/certificate/public-key';

/** The form the platform's key endpoint serves: hex DER PKCS#1 RSAPublicKey, upper case. */
export function providerHex(publicKey: KeyObject): string {
  return publicKey.export({ type: 'pkcs1', format: 'der' }).toString('hex').toUpperCase();
}
