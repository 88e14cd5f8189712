import { createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { loadJose } from './load-jose.ts';
import { KeyFormatError } from './key-format-error.ts';
import { publicKeyFromDer } from './public-key-der.ts';

/**
 * One PEM block: `PUBLIC KEY`, `RSA PUBLIC KEY` or `CERTIFICATE`. The block is taken apart and
 * its base64 checked here rather than trusting Node's PEM reader, which skips surrounding text
 * and would derive a public key from a private block.
 */

export async function publicKeyFromPem(text: string): Promise<KeyObject> {
  // A PEM kept in an environment variable often has its newlines escaped as a literal "\n";
  // base64 never contains a backslash, so undoing that cannot change a valid PEM.
  const pem = text.replace(/(?:\\r)?\\n/g, '\n');
  const blocks = [...pem.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g)];
  if (blocks.some((block) => (block[1] ?? '').includes('PRIVATE'))) {
    throw new KeyFormatError(
      'private-key',
      'signing key PEM holds a private key; give the public key',
    );
  }
  const block = blocks[0];
  if (blocks.length !== 1 || block === undefined || pem.replace(block[0], '').trim() !== '') {
    throw new KeyFormatError('malformed', 'signing key PEM must be exactly one PEM block');
  }
  const label = block[1] ?? '';
  const body = (block[2] ?? '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) {
    throw new KeyFormatError('malformed', `signing key PEM "${label}" body is not plain base64`);
  }
  switch (label) {
    case 'PUBLIC KEY':
      return publicKeyFromDer(Buffer.from(body, 'base64'), 'spki', `PEM "${label}"`);
    case 'RSA PUBLIC KEY':
      return publicKeyFromDer(Buffer.from(body, 'base64'), 'pkcs1', `PEM "${label}"`);
    case 'CERTIFICATE':
      return publicKeyFromCertificate(body);
    default:
      throw new KeyFormatError('unrecognised', `signing key PEM type "${label}" is not supported`);
  }
}

async function publicKeyFromCertificate(base64Body: string): Promise<KeyObject> {
  // Only the certificate's key matters: it is pinned by configuration, so its chain, validity
  // dates and signature are deliberately not checked. node-jose reads the certificate.
  const lines = base64Body.match(/.{1,64}/g) ?? [];
  const pem = `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
  const jwk = await (
    await loadJose()
  ).JWK.asKey(pem, 'pem').catch(() => {
    throw new KeyFormatError(
      'malformed',
      'signing key certificate could not be read (or holds neither an RSA nor an EC key)',
    );
  });
  if (jwk.kty !== 'RSA') {
    throw new KeyFormatError('not-rsa', `signing key certificate holds a ${jwk.kty} key, not RSA`);
  }
  return createPublicKey(jwk.toPEM(false));
}
