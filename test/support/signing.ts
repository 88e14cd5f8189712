import { createPrivateKey, createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { SigningKeyPair } from '../../tools/common/signing.ts';

/**
 * Signing the way the platform does (tools/common/signing.ts) and exporting a public key in every
 * form the receiver accepts. Nothing is cached here: key generation takes tens of milliseconds,
 * so a test file should generate its pair once, in `beforeAll`.
 */

export {
  generateSigningKeyPair,
  signBody,
  type SigningKeyPair,
} from '../../tools/common/signing.ts';

/** What the platform's key endpoint serves: hex DER PKCS#1 RSAPublicKey, upper case. */
export { providerHex as publicKeyAsProviderHex } from '../../src/lib/platform-key.ts';

export function publicKeyAsSpkiHex(publicKey: KeyObject): string {
  return publicKey.export({ type: 'spki', format: 'der' }).toString('hex');
}

/** `-----BEGIN PUBLIC KEY-----` (SPKI). */
export function publicKeyAsPem(publicKey: KeyObject): string {
  return publicKey.export({ type: 'spki', format: 'pem' }).toString();
}

/** `-----BEGIN RSA PUBLIC KEY-----` (PKCS#1). */
export function publicKeyAsRsaPem(publicKey: KeyObject): string {
  return publicKey.export({ type: 'pkcs1', format: 'pem' }).toString();
}

export function publicKeyAsJwkJson(publicKey: KeyObject): string {
  return JSON.stringify(publicKey.export({ format: 'jwk' }));
}

export interface CertificateFixture extends SigningKeyPair {
  /** `-----BEGIN CERTIFICATE-----`, self-signed, RSA-2048. */
  certificatePem: string;
}

/**
 * A committed self-signed certificate and its private key (test/fixtures/keys, made once with
 * openssl; see the README there), so tests need neither the openssl CLI nor a certificate
 * builder. The key exists only for tests and signs nothing real.
 */
export function loadCertificateFixture(): CertificateFixture {
  const read = (name: string): string =>
    readFileSync(new URL(`../fixtures/keys/${name}`, import.meta.url), 'utf8');
  const certificatePem = read('certificate.pem');
  return {
    certificatePem,
    publicKey: createPublicKey(certificatePem),
    privateKey: createPrivateKey(read('certificate-key.pem')),
  };
}
