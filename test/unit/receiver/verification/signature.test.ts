import { beforeAll, describe, expect, it } from 'vitest';
import { parsePublicKey } from '../../../../src/receiver/verification/public-key.ts';
import {
  decodeSignature,
  verifySignature,
} from '../../../../src/receiver/verification/signature.ts';
import {
  generateSigningKeyPair,
  loadCertificateFixture,
  publicKeyAsProviderHex,
  signBody,
} from '../../../support/signing.ts';
import type { SigningKeyPair } from '../../../support/signing.ts';

const BODY = Buffer.from(
  '{"TransactionId":"9F1C2A","Amount":"10.0000","DateTime":"2023-08-11T14:19:16","ReceiptNumber":1234}',
);

let pair: SigningKeyPair;
let stranger: SigningKeyPair;

beforeAll(async () => {
  [pair, stranger] = await Promise.all([generateSigningKeyPair(), generateSigningKeyPair()]);
});

describe('decodeSignature', () => {
  it('when the header is standard base64, then it yields the bytes', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0x00, 0x3e, 0x7f]);
    expect(decodeSignature(bytes.toString('base64'))).toEqual(bytes);
  });

  it('when the base64 is broken by spaces, tabs and CRLF line breaks, then it yields the same bytes', () => {
    const signature = signBody(BODY, pair.privateKey);
    const wrapped = ` ${signature.replace(/(.{76})/g, '$1\r\n').replace(/(.{10})/, '$1 \t')}\n`;
    expect(wrapped).toContain('\r\n');
    expect(decodeSignature(wrapped)).toEqual(Buffer.from(signature, 'base64'));
  });

  it('when the header is base64url, padded or not, then it yields the same bytes as base64', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0x3e]);
    const url = bytes.toString('base64url');
    expect(url).toMatch(/[-_]/);
    expect(decodeSignature(url)).toEqual(bytes);
    expect(decodeSignature(`${url}==`)).toEqual(bytes);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['only whitespace', ' \r\n\t'],
    ['not base64 at all', 'not*base64!'],
    ['base64 with a stray character', `${Buffer.from('abcdef').toString('base64')}%`],
    ['wrong padding (too much)', 'QUI=='],
    ['padding in the middle', 'QU==QUJD'],
    ['a non-canonical spelling', 'QUJ='],
    ['mixed base64 and base64url alphabets', '+_+_'],
    ['only padding', '===='],
  ])('when the header is %s, then it yields undefined', (_, header) => {
    expect(decodeSignature(header)).toBeUndefined();
  });
});

describe('verifySignature', () => {
  const verify = (body: Buffer, header: string, key = pair.publicKey): boolean => {
    const signature = decodeSignature(header);
    if (signature === undefined) throw new Error('test signature did not decode');
    return verifySignature(body, signature, key);
  };

  it('when the body is signed with the matching private key, then it verifies', () => {
    expect(verify(BODY, signBody(BODY, pair.privateKey))).toBe(true);
  });

  it('when the key was parsed from the provider hex, then it verifies', async () => {
    const key = await parsePublicKey(publicKeyAsProviderHex(pair.publicKey));
    expect(verify(BODY, signBody(BODY, pair.privateKey), key)).toBe(true);
  });

  it('when the key was parsed from the fixture certificate, then a signature by its key verifies', async () => {
    const fixture = loadCertificateFixture();
    const key = await parsePublicKey(fixture.certificatePem);
    expect(verify(BODY, signBody(BODY, fixture.privateKey), key)).toBe(true);
  });

  it('when one byte of the body changes, then it does not verify', () => {
    const tampered = Buffer.from(BODY);
    tampered[tampered.length - 2] = (tampered[tampered.length - 2] ?? 0) ^ 0x01;
    expect(verify(tampered, signBody(BODY, pair.privateKey))).toBe(false);
  });

  it('when the JSON is re-serialised (same meaning, other bytes), then it does not verify', () => {
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(BODY.toString()), null, 1));
    expect(verify(reserialised, signBody(BODY, pair.privateKey))).toBe(false);
  });

  it('when the body was signed by another key, then it does not verify', () => {
    expect(verify(BODY, signBody(BODY, stranger.privateKey))).toBe(false);
  });

  it.each([
    ['truncated by a byte', (s: Buffer) => s.subarray(1)],
    ['extended by a byte', (s: Buffer) => Buffer.concat([s, Buffer.from([0])])],
    ['empty', () => Buffer.alloc(0)],
    ['all 0xff', (s: Buffer) => Buffer.alloc(s.length, 0xff)],
  ])('when the signature is %s, then it returns false without throwing', (_, mangle) => {
    const signature = Buffer.from(signBody(BODY, pair.privateKey), 'base64');
    expect(verifySignature(BODY, mangle(signature), pair.publicKey)).toBe(false);
  });
});
