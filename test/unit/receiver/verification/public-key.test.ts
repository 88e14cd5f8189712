import { generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  KeyFormatError,
  keyFingerprint,
  parsePublicKey,
} from '../../../../src/receiver/verification/public-key.ts';
import type { KeyFormatProblem } from '../../../../src/receiver/verification/public-key.ts';
import {
  generateSigningKeyPair,
  loadCertificateFixture,
  publicKeyAsJwkJson,
  publicKeyAsPem,
  publicKeyAsProviderHex,
  publicKeyAsRsaPem,
  publicKeyAsSpkiHex,
} from '../../../support/signing.ts';
import type { SigningKeyPair } from '../../../support/signing.ts';

let pair: SigningKeyPair;
let other: SigningKeyPair;

beforeAll(async () => {
  [pair, other] = await Promise.all([generateSigningKeyPair(), generateSigningKeyPair()]);
});

async function rejection(text: string): Promise<KeyFormatError> {
  const error: unknown = await parsePublicKey(text).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(KeyFormatError);
  return error as KeyFormatError;
}

async function expectProblem(text: string, problem: KeyFormatProblem): Promise<void> {
  expect((await rejection(text)).problem).toBe(problem);
}

describe('parsePublicKey: accepted forms', () => {
  const forms: [string, (key: KeyObject) => string][] = [
    ['provider hex (upper-case DER PKCS#1)', publicKeyAsProviderHex],
    ['lower-case provider hex', (key) => publicKeyAsProviderHex(key).toLowerCase()],
    [
      'provider hex with 0x and surrounding whitespace',
      (key) => `\n  0x${publicKeyAsProviderHex(key)} \r\n`,
    ],
    [
      'provider hex wrapped over lines',
      (key) => publicKeyAsProviderHex(key).replace(/(.{64})/g, '$1\n'),
    ],
    ['hex DER SPKI', publicKeyAsSpkiHex],
    ['PEM PUBLIC KEY', publicKeyAsPem],
    ['PEM RSA PUBLIC KEY', publicKeyAsRsaPem],
    ['PEM with newlines escaped as \\n', (key) => publicKeyAsPem(key).trim().replace(/\n/g, '\\n')],
    ['PEM with the base64 on one line', (key) => publicKeyAsPem(key).replace(/\n(?!-----)/g, '')],
    ['JWK JSON', publicKeyAsJwkJson],
  ];

  it.each(forms)(
    'when given %s, then it yields the same key (same fingerprint)',
    async (_, form) => {
      const parsed = await parsePublicKey(form(pair.publicKey));
      expect(parsed.type).toBe('public');
      expect(keyFingerprint(parsed)).toBe(keyFingerprint(pair.publicKey));
    },
  );

  it('when given the provider hex, then it starts and ends as the platform documents', () => {
    const hex = publicKeyAsProviderHex(pair.publicKey);
    expect(hex.startsWith('3082010A02820101')).toBe(true);
    expect(hex.endsWith('0203010001')).toBe(true);
  });

  it('when given a PEM CERTIFICATE, then it yields the key inside the certificate', async () => {
    const fixture = loadCertificateFixture();
    const parsed = await parsePublicKey(fixture.certificatePem);
    expect(keyFingerprint(parsed)).toBe(keyFingerprint(fixture.publicKey));
  });
});

describe('parsePublicKey: refused inputs', () => {
  it.each([
    ['garbage', 'not a key at all'],
    ['an empty string', '   '],
    ['an OpenSSH public key', 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 user@host'],
  ])('when given %s, then it is refused as unrecognised', async (_, text) => {
    await expectProblem(text, 'unrecognised');
  });

  it('when given a private key PEM (PKCS#8), then it is refused as a private key', async () => {
    await expectProblem(
      pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      'private-key',
    );
  });

  it('when given an RSA PRIVATE KEY PEM, then it is refused as a private key', async () => {
    await expectProblem(
      pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
      'private-key',
    );
  });

  it('when a PEM holds a public key followed by a private key, then it is refused as a private key', async () => {
    const both =
      publicKeyAsPem(pair.publicKey) +
      pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await expectProblem(both, 'private-key');
  });

  it('when given a private key as hex DER (PKCS#1 or PKCS#8), then it is refused as a private key', async () => {
    for (const type of ['pkcs1', 'pkcs8'] as const) {
      await expectProblem(
        pair.privateKey.export({ type, format: 'der' }).toString('hex'),
        'private-key',
      );
    }
  });

  it('when given a JWK with a private exponent d, then it is refused as a private key', async () => {
    await expectProblem(JSON.stringify(pair.privateKey.export({ format: 'jwk' })), 'private-key');
  });

  it('when given an EC public key (PEM or JWK), then it is refused as not RSA', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await expectProblem(publicKey.export({ type: 'spki', format: 'pem' }).toString(), 'not-rsa');
    await expectProblem(JSON.stringify(publicKey.export({ format: 'jwk' })), 'not-rsa');
  });

  it('when given an RSA-PSS key, then it is refused as not RSA', async () => {
    const { publicKey } = generateKeyPairSync('rsa-pss', { modulusLength: 2048 });
    await expectProblem(publicKey.export({ type: 'spki', format: 'pem' }).toString(), 'not-rsa');
  });

  it('when given an RSA-1024 key in any form, then it is refused as too small', async () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    for (const form of [publicKeyAsProviderHex, publicKeyAsPem, publicKeyAsJwkJson]) {
      await expectProblem(form(publicKey), 'too-small');
    }
  });

  it.each([
    ['hex with an odd number of digits', () => `${publicKeyAsProviderHex(pair.publicKey)}0`],
    ['hex that is not a DER key', () => 'DEADBEEF'.repeat(40)],
    ['truncated provider hex', () => publicKeyAsProviderHex(pair.publicKey).slice(0, 300)],
    ['two PEM blocks', () => publicKeyAsPem(pair.publicKey) + publicKeyAsPem(other.publicKey)],
    ['text around a PEM block', () => `key: ${publicKeyAsPem(pair.publicKey)}`],
    [
      'a PEM whose body is not base64',
      () => '-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----',
    ],
    [
      'a PUBLIC KEY PEM holding PKCS#1',
      () => publicKeyAsRsaPem(pair.publicKey).replace(/RSA PUBLIC/g, 'PUBLIC'),
    ],
    [
      'a damaged certificate',
      () => loadCertificateFixture().certificatePem.replace(/\n[A-Za-z0-9+/]{64}\n/, '\n'),
    ],
    ['JSON that does not parse', () => '{"kty":"RSA",'],
    ['a JWK missing n', () => '{"kty":"RSA","e":"AQAB"}'],
    ['a JWK Set rather than a JWK', () => `{"keys":[${publicKeyAsJwkJson(pair.publicKey)}]}`],
    ['a JSON object that is not a JWK', () => '{"n":"AQAB","e":"AQAB"}'],
  ])('when given %s, then it is refused as malformed', async (_, text) => {
    await expectProblem(text(), 'malformed');
  });

  it('when given an unsupported PEM type, then it is refused as unrecognised', async () => {
    await expectProblem(
      '-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----',
      'unrecognised',
    );
  });

  it('when refusing long key material, then the message does not echo it', async () => {
    const hex = 'DEADBEEF'.repeat(40);
    const error = await rejection(hex);
    expect(error.message).not.toContain('DEADBEEF');
    expect(error.message.length).toBeLessThan(200);
    const privateError = await rejection(
      pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    );
    expect(privateError.message).not.toContain('MII');
  });
});

describe('keyFingerprint', () => {
  it('when given two different keys, then the fingerprints differ and are SHA-256 hex', () => {
    const a = keyFingerprint(pair.publicKey);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(keyFingerprint(other.publicKey)).not.toBe(a);
  });
});
