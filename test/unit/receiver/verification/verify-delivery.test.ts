import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createConfiguredKeySource } from '../../../../src/receiver/verification/key-source.ts';
import { createFetchedKeySource } from '../../../../src/receiver/verification/fetched-key-source.ts';
import type {
  SigningKey,
  SigningKeySource,
} from '../../../../src/receiver/verification/key-source.ts';
import { keyFingerprint } from '../../../../src/receiver/verification/public-key.ts';
import { checkSignature } from '../../../../src/receiver/verification/verify-delivery.ts';
import {
  generateSigningKeyPair,
  publicKeyAsProviderHex,
  signBody,
} from '../../../support/signing.ts';
import type { SigningKeyPair } from '../../../support/signing.ts';

const BODY = Buffer.from('[{"id":"R-1","batchId":"B-7","amount":"12.3400"}]');

let oldPair: SigningKeyPair;
let newPair: SigningKeyPair;
let oldKey: SigningKey;
let newKey: SigningKey;

beforeAll(async () => {
  [oldPair, newPair] = await Promise.all([generateSigningKeyPair(), generateSigningKeyPair()]);
  const asSigningKey = (pair: SigningKeyPair): SigningKey => ({
    key: pair.publicKey,
    fingerprint: keyFingerprint(pair.publicKey),
    obtainedAt: 0,
    origin: 'fetched',
  });
  oldKey = asSigningKey(oldPair);
  newKey = asSigningKey(newPair);
});

/** A key source whose every answer a test sets, and whose calls it can count. */
function fakeSource(answers: {
  current?: SigningKey;
  ensure?: SigningKey;
  refreshed?: SigningKey | 'unconfirmed';
}) {
  return {
    current: vi.fn(() => answers.current),
    ensure: vi.fn(() => Promise.resolve(answers.ensure)),
    refreshAfterFailure: vi.fn((_failed: SigningKey) => Promise.resolve(answers.refreshed)),
    start: vi.fn(() => Promise.resolve()),
    stop: vi.fn(),
  } satisfies SigningKeySource;
}

describe('checkSignature', () => {
  it('when the signature verifies with the held key, then it passes without a refresh', async () => {
    const keys = fakeSource({ current: oldKey });

    await expect(checkSignature(BODY, signBody(BODY, oldPair.privateKey), keys)).resolves.toEqual({
      ok: true,
      key: oldKey,
    });
    expect(keys.refreshAfterFailure).not.toHaveBeenCalled();
  });

  it('when the key source is a configured key, then a valid signature passes', async () => {
    const keys = createConfiguredKeySource(oldPair.publicKey, () => 0);

    const result = await checkSignature(BODY, signBody(BODY, oldPair.privateKey), keys);

    expect(result).toMatchObject({ ok: true, key: { origin: 'configured' } });
  });

  it.each([
    ['absent', undefined, 'missing-signature'],
    ['blank', '  ', 'missing-signature'],
    ['not base64', 'sig=not*base64', 'malformed-signature'],
  ] as const)(
    'when the header is %s, then it fails as %s without touching the keys',
    async (_, header, reason) => {
      const keys = fakeSource({ current: oldKey });

      await expect(checkSignature(BODY, header, keys)).resolves.toEqual({ ok: false, reason });
      expect(keys.current).not.toHaveBeenCalled();
      expect(keys.ensure).not.toHaveBeenCalled();
    },
  );

  it('when no key is held yet, then ensure() is asked and its key is used', async () => {
    const keys = fakeSource({ ensure: oldKey });

    await expect(
      checkSignature(BODY, signBody(BODY, oldPair.privateKey), keys),
    ).resolves.toMatchObject({ ok: true });
    expect(keys.ensure).toHaveBeenCalledTimes(1);
  });

  it('when no key can be had at all, then it fails as no-key', async () => {
    const keys = fakeSource({});

    await expect(checkSignature(BODY, signBody(BODY, oldPair.privateKey), keys)).resolves.toEqual({
      ok: false,
      reason: 'no-key',
    });
  });

  it('when the signature does not verify and no new key comes, then it fails as mismatch', async () => {
    const keys = fakeSource({ current: oldKey });
    const tampered = Buffer.from(BODY.toString().replace('12.3400', '92.3400'));

    await expect(
      checkSignature(tampered, signBody(BODY, oldPair.privateKey), keys),
    ).resolves.toEqual({ ok: false, reason: 'mismatch' });
    expect(keys.refreshAfterFailure).toHaveBeenCalledWith(oldKey);
  });

  it('when the key could not be re-checked just now, then it fails as key-unconfirmed (503, retried), not mismatch', async () => {
    const keys = fakeSource({ current: oldKey, refreshed: 'unconfirmed' });

    await expect(checkSignature(BODY, signBody(BODY, newPair.privateKey), keys)).resolves.toEqual({
      ok: false,
      reason: 'key-unconfirmed',
    });
    expect(keys.refreshAfterFailure).toHaveBeenCalledTimes(1);
  });

  it('when the platform rotated its key, then the refreshed key verifies the delivery', async () => {
    const keys = fakeSource({ current: oldKey, refreshed: newKey });

    await expect(checkSignature(BODY, signBody(BODY, newPair.privateKey), keys)).resolves.toEqual({
      ok: true,
      key: newKey,
    });
    expect(keys.refreshAfterFailure).toHaveBeenCalledTimes(1);
  });

  it('when the refreshed key does not verify either, then it fails as mismatch after one refresh', async () => {
    const keys = fakeSource({ current: oldKey, refreshed: newKey });
    const stranger = await generateSigningKeyPair();

    await expect(checkSignature(BODY, signBody(BODY, stranger.privateKey), keys)).resolves.toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(keys.refreshAfterFailure).toHaveBeenCalledTimes(1);
  });
});

describe('checkSignature with a fetched key source', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

  it('when the endpoint starts serving a rotated key, then a delivery signed with it passes once the cooldown is over', async () => {
    let served = publicKeyAsProviderHex(oldPair.publicKey);
    const server = createServer((_req, res) => res.writeHead(200).end(served));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => server.close());
    const clock = { now: 1_000 };
    const keys = createFetchedKeySource({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/public/v1/certificate/public-key`,
      fetchTimeoutMs: 2_000,
      refreshCooldownMs: 10_000,
      retryIntervalMs: 1_000,
      allowHttp: true,
      now: () => clock.now,
      logger: pino({ level: 'silent' }),
    });
    cleanups.push(() => keys.stop());
    await keys.start();
    served = publicKeyAsProviderHex(newPair.publicKey);
    const signature = signBody(BODY, newPair.privateKey);

    await expect(checkSignature(BODY, signature, keys)).resolves.toEqual({
      ok: false,
      reason: 'mismatch',
    });
    clock.now += 10_000;
    const result = await checkSignature(BODY, signature, keys);

    expect(result).toMatchObject({ ok: true, key: { fingerprint: newKey.fingerprint } });
  });
});
