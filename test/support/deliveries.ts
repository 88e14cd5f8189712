import type { KeyObject } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { signBody } from './signing.ts';

export interface DeliveryOptions {
  event?: string;
  body: string | Buffer | object;
  webhookId?: string | null;
  /** Private key to sign with; omit together with `signature` to send no signature. */
  signWith?: KeyObject;
  /** A signature header value to send as is (overrides signWith). */
  signature?: string;
  /** Sent as `Authorisation` unless `authHeader` says otherwise. */
  secret?: string;
  authHeader?: 'Authorisation' | 'Authorization';
  contentType?: string | null;
  headers?: Record<string, string>;
}

let nextWebhookId = BigInt(Date.now()) * 1000n;

/** A fresh, valid Webhookid for each call. */
export function freshWebhookId(): string {
  nextWebhookId += 1n;
  return nextWebhookId.toString();
}

export function bodyBytes(body: DeliveryOptions['body']): Buffer {
  if (Buffer.isBuffer(body)) return body;
  return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
}

/** POSTs a delivery the way the platform does: signed raw bytes, Webhookid, shared secret. */
export function sendDelivery(app: Express, options: DeliveryOptions): request.Test {
  const bytes = bodyBytes(options.body);
  let req = request(app)
    .post(`/webhooks/${options.event ?? 'NPPReceivePayment'}`)
    .set('Content-Type', 'application/json');
  if (options.contentType === null) req = req.unset('Content-Type');
  else if (options.contentType !== undefined) req = req.set('Content-Type', options.contentType);
  const webhookId = options.webhookId === undefined ? freshWebhookId() : options.webhookId;
  if (webhookId !== null) req = req.set('Webhookid', webhookId);
  const signature = options.signature ?? (options.signWith && signBody(bytes, options.signWith));
  if (signature !== undefined) req = req.set('Verification-Signature', signature);
  if (options.secret !== undefined)
    req = req.set(options.authHeader ?? 'Authorisation', options.secret);
  for (const [name, value] of Object.entries(options.headers ?? {})) req = req.set(name, value);
  // superagent would JSON-encode a Buffer sent as application/json; the bytes must go as they are.
  return req.serialize((data: unknown) => data as string).send(bytes);
}
