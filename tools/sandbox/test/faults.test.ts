import { describe, expect, it } from 'vitest';
import { keyFingerprint, parsePublicKey } from '../../../src/receiver/signature.ts';
import { decodeSignature, verifySignature } from '../../../src/receiver/signature.ts';
import {
  CREDENTIALS,
  startSubscriber,
  startTestSandbox,
  subscribe,
  type Received,
} from './support.ts';

const ACCOUNT = `Basic ${Buffer.from(`${CREDENTIALS.mAccount}:${CREDENTIALS.apiKey}`).toString('base64')}`;

describe('faults', () => {
  it('when webhook-fail is armed for 1, then the first attempt never reaches the subscriber and the retry does', async () => {
    const { call } = await startTestSandbox({ retryDelayMs: 50 });
    const subscriber = await startSubscriber();
    await subscribe(call, subscriber.url, ['NPPReceivePayment']);
    expect(
      (await call('POST', '/sandbox/faults', { body: { kind: 'webhook-fail', count: 1 } })).status,
    ).toBe(200);
    const first = await call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: '1.00' },
    });
    expect(first.body.deliveries).toEqual([
      expect.objectContaining({ status: 'Sent', retryCount: 1 }),
    ]);
    expect(subscriber.received).toHaveLength(1);
    // Used up: the next payment goes through at the first attempt.
    const second = await call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: '1.00' },
    });
    expect(second.body.deliveries).toEqual([
      expect.objectContaining({ status: 'Sent', retryCount: 0 }),
    ]);
    expect((await call('GET', '/sandbox/faults')).body.armed).toEqual([]);
  });

  it('when webhook-timeout is armed, then the subscriber gets the delivery twice with the same Webhookid', async () => {
    const { call } = await startTestSandbox({ retryDelayMs: 50 });
    const subscriber = await startSubscriber();
    await subscribe(call, subscriber.url, ['NPPReceivePayment']);
    await call('POST', '/sandbox/faults', { body: { kind: 'webhook-timeout' } });
    const created = await call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: '1.00' },
    });
    expect(created.body.deliveries).toEqual([
      expect.objectContaining({ status: 'Sent', retryCount: 1 }),
    ]);
    const [first, retry] = subscriber.received as [Received, Received];
    expect(subscriber.received).toHaveLength(2);
    expect(retry.headers.webhookid).toBe(first.headers.webhookid);
    expect(retry.body.equals(first.body)).toBe(true);
  });

  it('when token-fail is armed for 2, then two token requests fail with the status asked for and the third succeeds', async () => {
    const { call } = await startTestSandbox();
    await call('POST', '/sandbox/faults', { body: { kind: 'token-fail', count: 2, status: 503 } });
    const answers = [];
    for (let i = 0; i < 3; i += 1)
      answers.push(await call('POST', '/au/security/oauth-v1/Token', { auth: ACCOUNT }));
    expect(answers.map((a) => a.status)).toEqual([503, 503, 200]);
    expect(answers[0]?.body.token).toBeUndefined();
    expect(answers[2]?.body.token).toEqual(expect.any(String));
  });

  it('when endpoint-error is armed for one path, then only that path answers 500, in its own envelope', async () => {
    const { call } = await startTestSandbox();
    await call('POST', '/sandbox/faults', {
      body: { kind: 'endpoint-error', path: '/mWallet/v1/search' },
    });
    expect((await call('GET', '/paytoreceivables/v1/report/20240305000000')).status).toBe(200);
    const failed = await call('GET', '/mWallet/v1/search');
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({
      status: 'InternalServerError',
      errorCode: 'InternalServerError',
    });
    expect((await call('GET', '/mWallet/v1/search')).status).toBe(200);
  });

  it('when endpoint-error is armed without a path, then the next platform call fails whatever it is; control routes are not affected', async () => {
    const { call } = await startTestSandbox();
    await call('POST', '/sandbox/faults', { body: { kind: 'endpoint-error', count: 1 } });
    expect((await call('GET', '/sandbox/faults')).status).toBe(200);
    const failed = await call('GET', '/paytoreceivables/v1/report/20240305000000');
    expect(failed.status).toBe(500);
    expect(failed.body.errors).toBeUndefined();
    expect((await call('GET', '/paytoreceivables/v1/report/20240305000000')).status).toBe(200);
  });

  it('when the signing key rotates, then the key endpoint serves the new key and deliveries verify only with it', async () => {
    const { call, keys } = await startTestSandbox({ ownKeys: true });
    const subscriber = await startSubscriber();
    await subscribe(call, subscriber.url, ['NPPReceivePayment']);
    const oldKey = await parsePublicKey(
      (await call('GET', '/public/v1/certificate/public-key')).text,
    );
    const rotated = await call('POST', '/sandbox/faults', { body: { kind: 'rotate-key' } });
    expect(rotated.body.fingerprint).toBe(keys.fingerprint());
    const newKey = await parsePublicKey(
      (await call('GET', '/public/v1/certificate/public-key')).text,
    );
    expect(keyFingerprint(newKey)).not.toBe(keyFingerprint(oldKey));
    await call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: '1.00' },
    });
    const [request] = subscriber.received as [Received];
    const signature = decodeSignature(request.headers['verification-signature'] as string)!;
    expect(verifySignature(request.body, signature, newKey)).toBe(true);
    expect(verifySignature(request.body, signature, oldKey)).toBe(false);
  });

  it('when a fault is malformed, then 400 and nothing is armed', async () => {
    const { call } = await startTestSandbox();
    for (const body of [
      { kind: 'meteor' },
      { kind: 'webhook-fail', count: 0 },
      { kind: 'token-fail', status: 200 },
      { kind: 'endpoint-error', path: 'no-slash' },
    ]) {
      expect((await call('POST', '/sandbox/faults', { body })).status).toBe(400);
    }
    expect((await call('GET', '/sandbox/faults')).body.armed).toEqual([]);
  });
});
