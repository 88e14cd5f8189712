import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signWebhook } from '../../../src/feed/sinks/signer.ts';
import { parseWebhookSecret } from '../../../src/lib/webhook-secret.ts';

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;
const key = (text: string) => parseWebhookSecret(text) as Buffer;

describe('Standard Webhooks signer', () => {
  it('when an event is signed, then the stock standardwebhooks library verifies it', () => {
    const text = secret();
    const body = '{"id":"evt_1","amount":"10.50","name":"Zoë"}';
    const headers = signWebhook([key(text)], 'evt_1', new Date(), body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(text).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('when the body, id or timestamp is altered, then verification fails', () => {
    const text = secret();
    const body = '{"a":1}';
    const headers = signWebhook([key(text)], 'evt_1', new Date(), body);
    const hook = new Webhook(text);
    expect(() => hook.verify('{"a":2}', { ...headers })).toThrow();
    expect(() => hook.verify(body, { ...headers, 'webhook-id': 'evt_2' })).toThrow();
    const later = String(Number(headers['webhook-timestamp']) + 1);
    expect(() => hook.verify(body, { ...headers, 'webhook-timestamp': later })).toThrow();
    expect(() => new Webhook(secret()).verify(body, { ...headers })).toThrow();
  });

  it('when two secrets are configured (a rotation), then a consumer holding either verifies', () => {
    const [oldText, newText] = [secret(), secret()];
    const body = '{}';
    const headers = signWebhook([key(oldText), key(newText)], 'evt_9', new Date(), body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(oldText).verify(body, { ...headers })).toEqual({});
    expect(new Webhook(newText).verify(body, { ...headers })).toEqual({});
  });

  it.each([
    ['no prefix', randomBytes(32).toString('base64'), 'whsec_'],
    ['not base64', 'whsec_***', 'base64'],
    ['too short', `whsec_${randomBytes(8).toString('base64')}`, '24 to 64'],
  ])('when the secret has %s, then it is refused with a reason', (_name, text, reason) => {
    expect(parseWebhookSecret(text)).toEqual(expect.stringContaining(reason));
  });
});
