import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppDeps } from '../../../src/receiver/http/app.ts';
import { listen } from '../../../src/lib/http/server.ts';
import { bodyBytes, freshWebhookId } from '../../support/deliveries.ts';
import { rawConnection, statuses, type RawConnection } from '../../support/raw-connection.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { signBody } from '../../support/signing.ts';
import { buildTestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * Budgets at the edge: requests without credentials must not hold the slots, memory or time
 * that genuine deliveries need. Small scale (a handful of sockets, small limits) proving the
 * property the issue measured at 256-260 sockets; everything on 127.0.0.1, bounded in time.
 */

const SECRET = 'Basic ZWRnZTpzZWNyZXQ=';
const KIB = 1024;
const SECOND = 1000;
/** Generous: a loaded machine may be slow, but a refused request is answered at once. */
const ANSWER_WITHIN_MS = 3 * SECOND;

const bed = useTestbed();
let server: Server | undefined;
const connections: RawConnection[] = [];

afterEach(() => {
  for (const conn of connections.splice(0)) conn.destroy();
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

async function serve(config: Partial<AppDeps['config']>): Promise<number> {
  const { app } = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey, config });
  server = await listen(app, {
    port: 0,
    host: '127.0.0.1',
    timeouts: {
      requestTimeoutMs: 20 * SECOND,
      headersTimeoutMs: 10 * SECOND,
      keepAliveTimeoutMs: 5 * SECOND,
    },
  });
  return (server.address() as AddressInfo).port;
}

/** Headers of a delivery with a large declared body and no credentials, then one byte. */
async function trickler(port: number, extraHeaders = ''): Promise<RawConnection> {
  const conn = await rawConnection(port);
  connections.push(conn);
  conn.write(
    'POST /webhooks/NPPReceivePayment HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
      `Content-Type: application/json\r\nWebhookid: 1\r\nContent-Length: 10000\r\n${extraHeaders}\r\n{`,
  );
  return conn;
}

/** An unauthenticated gzip body inflating to about `inflated` bytes, sent but for its end. */
async function gzipStaller(port: number, inflated: number): Promise<RawConnection> {
  const bomb = gzipSync(Buffer.alloc(inflated, 0x20));
  const conn = await rawConnection(port);
  connections.push(conn);
  conn.write(
    'POST /webhooks/NPPReceivePayment HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
      'Content-Type: application/json\r\nContent-Encoding: gzip\r\nWebhookid: 2\r\n' +
      `Content-Length: ${bomb.length}\r\n\r\n`,
  );
  conn.write(bomb.subarray(0, -16));
  return conn;
}

/** A genuine signed delivery; resolves to its status (0: no answer in time). */
async function genuine(port: number, secret?: string): Promise<number> {
  const body = bodyBytes(nppPayment());
  const response = await fetch(`http://127.0.0.1:${port}/webhooks/NPPReceivePayment`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Webhookid: freshWebhookId(),
      'Verification-Signature': signBody(body, bed.signer.privateKey),
      ...(secret !== undefined && { Authorisation: secret }),
    },
    body,
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
  }).catch(() => undefined);
  await response?.arrayBuffer();
  return response?.status ?? 0;
}

async function gauge(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (!match?.[1]) throw new Error(`no ${name} in /metrics`);
  return Number(match[1]);
}

async function eventually(read: () => Promise<number>, expected: number): Promise<number> {
  let value = await read();
  for (let tries = 0; value !== expected && tries < 100; tries += 1) {
    await delay(50);
    value = await read();
  }
  return value;
}

describe('slots: the secret is checked before a slot is taken or the body read', () => {
  it('when more slow senders without credentials are open than there are slots, then they get 401 and every genuine delivery gets 200', async () => {
    const port = await serve({ webhookSecrets: [SECRET], maxInFlightDeliveries: 4 });
    const slow = await Promise.all(Array.from({ length: 8 }, () => trickler(port)));
    await delay(200);
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push(await genuine(port, SECRET));
    expect(answers).toEqual([200, 200, 200]);
    for (const conn of slow) {
      expect(await conn.closedWithin(ANSWER_WITHIN_MS), 'connection left open').toBeDefined();
      expect(statuses(conn.received())).toEqual([401]);
    }
    expect(await bed.database.count('webhook_deliveries')).toBe(3);
    expect(await bed.database.count('quarantined_deliveries')).toBe(0);
  });

  it('when no secret is configured, then unverified bodies beyond their own budget get a quick 503 with Retry-After and take no delivery slot', async () => {
    const port = await serve({ maxInFlightDeliveries: 4, maxUnverifiedBodies: 2 });
    await trickler(port);
    await trickler(port);
    await delay(200);
    const third = await trickler(port);
    expect(await third.closedWithin(ANSWER_WITHIN_MS), 'third left waiting').toBeDefined();
    expect(statuses(third.received())).toEqual([503]);
    expect(third.received()).toMatch(/retry-after: 1/i);
    expect(await gauge(port, 'webhook_deliveries_in_flight')).toBe(0);
    expect(await gauge(port, 'webhook_unverified_bodies_in_flight')).toBe(2);

    for (const conn of connections.splice(0)) conn.destroy();
    expect(await eventually(() => gauge(port, 'webhook_unverified_bodies_in_flight'), 0)).toBe(0);
    expect(await genuine(port)).toBe(200);
    expect(await bed.database.count('webhook_deliveries')).toBe(1);
  });
});

describe('memory: bodies of unauthenticated requests are never inflated; all bodies share one budget', () => {
  it('when gzip bodies without credentials stall, then each gets 401 at once and no body byte is held', async () => {
    const port = await serve({ webhookSecrets: [SECRET], bodyLimitBytes: 256 * KIB });
    const stallers = await Promise.all(
      Array.from({ length: 3 }, () => gzipStaller(port, 200 * KIB)),
    );
    for (const conn of stallers) {
      expect(await conn.closedWithin(ANSWER_WITHIN_MS), 'connection left open').toBeDefined();
      expect(statuses(conn.received())).toEqual([401]);
    }
    expect(await gauge(port, 'webhook_body_bytes_in_flight')).toBe(0);
    await bed.expectNothingStored();
  });

  it('when stalled bodies fill the memory budget, then the next body gets a quick 503 with Retry-After, and the accounting returns to zero when they go', async () => {
    const port = await serve({
      bodyLimitBytes: 64 * KIB,
      bodyMemoryBudgetBytes: 128 * KIB,
      maxUnverifiedBodies: 8,
    });
    await gzipStaller(port, 60 * KIB);
    await gzipStaller(port, 60 * KIB);
    expect(
      await eventually(() => gauge(port, 'webhook_body_bytes_in_flight'), 120 * KIB),
    ).toBeGreaterThan(100 * KIB);
    const third = await gzipStaller(port, 60 * KIB);
    expect(await third.closedWithin(ANSWER_WITHIN_MS), 'third left waiting').toBeDefined();
    expect(statuses(third.received())).toEqual([503]);
    expect(third.received()).toMatch(/retry-after: 1/i);

    for (const conn of connections.splice(0)) conn.destroy();
    expect(await eventually(() => gauge(port, 'webhook_body_bytes_in_flight'), 0)).toBe(0);
    expect(await genuine(port)).toBe(200);
    expect(await eventually(() => gauge(port, 'webhook_body_bytes_in_flight'), 0)).toBe(0);
  });
});

describe('Expect: 100-continue is answered only after the secret check', () => {
  it('when the secret is wrong, then 401 comes without a 100 Continue', async () => {
    const port = await serve({ webhookSecrets: [SECRET] });
    const conn = await trickler(port, 'Authorisation: Basic d3Jvbmc=\r\nExpect: 100-continue\r\n');
    expect(await conn.closedWithin(ANSWER_WITHIN_MS), 'connection left open').toBeDefined();
    expect(statuses(conn.received())).toEqual([401]);
    await bed.expectNothingStored();
  });

  it('when the secret is right, then 100 Continue invites the body, and the delivery is stored', async () => {
    const port = await serve({ webhookSecrets: [SECRET] });
    const body = bodyBytes(nppPayment());
    const conn = await rawConnection(port);
    connections.push(conn);
    conn.write(
      'POST /webhooks/NPPReceivePayment HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        `Content-Type: application/json\r\nWebhookid: ${freshWebhookId()}\r\n` +
        `Verification-Signature: ${signBody(body, bed.signer.privateKey)}\r\n` +
        `Authorisation: ${SECRET}\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    expect(await conn.receivedWithin('HTTP/1.1 100 Continue', ANSWER_WITHIN_MS)).toBe(true);
    conn.write(body);
    expect(await conn.receivedWithin('Delivery stored', ANSWER_WITHIN_MS)).toBe(true);
    expect(statuses(conn.received())).toEqual([100, 200]);
    expect(await bed.database.count('webhook_deliveries')).toBe(1);
  });
});
