import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppDeps } from '../../../src/receiver/http/app.ts';
import { UNVERIFIED_GRACE_MS } from '../../../src/receiver/http/unverified-bodies.ts';
import { listen } from '../../../src/lib/http/server.ts';
import { bodyBytes, freshWebhookId } from '../../support/deliveries.ts';
import { rawConnection, statuses, type RawConnection } from '../../support/raw-connection.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { signBody } from '../../support/signing.ts';
import { buildTestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * The shared secret is no proof of the platform: slow senders that present it (or, with no
 * secret configured, any slow sender) must not hold the delivery slots, nor keep the places
 * where bodies are read from genuine signed deliveries. Small scale (a handful of sockets, small
 * limits) for what `npm run edge-attacks -- --scenario=secret-slots` measures at 260 sockets;
 * everything on 127.0.0.1, bounded in sockets and time.
 */

const SECRET = 'Basic ZWRnZTpzZWNyZXQ=';
const WITH_SECRET = `Authorisation: ${SECRET}\r\n`;
const KIB = 1024;
const SECOND = 1000;
/** Generous: a loaded machine may be slow, but these answers come within the grace period. */
const ANSWER_WITHIN_MS = UNVERIFIED_GRACE_MS + 3 * SECOND;
/** Long enough for every body being read to be past its grace period. */
const PAST_GRACE_MS = UNVERIFIED_GRACE_MS + 300;

const bed = useTestbed();
let server: Server | undefined;
const connections: RawConnection[] = [];
let stopAttack: (() => void) | undefined;

afterEach(() => {
  stopAttack?.();
  stopAttack = undefined;
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

/** Headers of a delivery (10 kB declared, no signature), then one byte, then silence. */
async function slowSender(port: number, headers: string): Promise<RawConnection> {
  const conn = await rawConnection(port);
  connections.push(conn);
  conn.write(
    'POST /webhooks/NPPReceivePayment HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
      `Content-Type: application/json\r\nWebhookid: 1\r\nContent-Length: 10000\r\n${headers}\r\n{`,
  );
  return conn;
}

/**
 * `count` slow senders that each come back `reconnectAfterMs` after the server closes them, as
 * a persistent attacker does; at most `count` at once and `maxConnections` in all.
 */
async function persistentSlowSenders(
  port: number,
  count: number,
  options: { headers: string; reconnectAfterMs: number; maxConnections: number },
) {
  let opened = 0;
  let stopped = false;
  const failures: unknown[] = [];
  const open = async () => {
    if (stopped || opened >= options.maxConnections) return;
    opened += 1;
    const conn = await slowSender(port, options.headers);
    conn.socket.once('close', () => {
      const reopen = () => {
        open().catch((error: unknown) => failures.push(error));
      };
      if (!stopped) setTimeout(reopen, options.reconnectAfterMs);
    });
  };
  for (let i = 0; i < count; i += 1) await open();
  stopAttack = () => {
    stopped = true;
  };
  return { opened: () => opened, failures: () => failures };
}

/** A gzip body (no signature) inflating to about `inflated` bytes, sent but for its end. */
async function gzipStaller(port: number, inflated: number, headers: string) {
  const bomb = gzipSync(Buffer.alloc(inflated, 0x20));
  const conn = await rawConnection(port);
  connections.push(conn);
  conn.write(
    'POST /webhooks/NPPReceivePayment HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
      `Content-Type: application/json\r\nContent-Encoding: gzip\r\nWebhookid: 2\r\n${headers}` +
      `Content-Length: ${bomb.length}\r\n\r\n`,
  );
  conn.write(bomb.subarray(0, -16));
  return conn;
}

/** A genuine signed delivery, sent at once; resolves to its status (0: no answer in time). */
async function genuine(port: number, secret: string | undefined, padTo = 0): Promise<number> {
  const json = bodyBytes(nppPayment());
  // Whitespace after the JSON value is still JSON: a bigger body, signed like any other.
  const body = Buffer.concat([json, Buffer.alloc(Math.max(0, padTo - json.length), 0x20)]);
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

async function metric(port: number, name: string): Promise<number> {
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

/** How many of `conns` got each answer so far ("open" for none yet). */
function answers(conns: RawConnection[]): Record<string, number> {
  const tally: Record<string, number> = {};
  for (const conn of conns) {
    const key = statuses(conn.received()).join(',') || 'open';
    tally[key] = (tally[key] ?? 0) + 1;
  }
  return tally;
}

describe('slow senders, with the secret or with none configured, never starve genuine deliveries', () => {
  it.each([
    ['presenting the shared secret', [SECRET], WITH_SECRET],
    ['when no secret is configured', [], ''],
  ])(
    'when more slow senders %s are connected than there are slots, then they hold no delivery slot and every genuine signed delivery gets 200',
    async (_label, secrets, headers) => {
      const port = await serve({
        webhookSecrets: secrets,
        maxInFlightDeliveries: 4,
        maxUnverifiedBodies: 2,
      });
      const slow: RawConnection[] = [];
      for (let i = 0; i < 8; i += 1) slow.push(await slowSender(port, headers));
      await delay(PAST_GRACE_MS);
      expect(await metric(port, 'webhook_deliveries_in_flight')).toBe(0);
      // Two read in slots; the six that came while both slots were young were on probation and
      // got the 503 they would have had at once, once their grace period was over.
      expect(answers(slow)).toEqual({ open: 2, '503': 6 });
      const holders = slow.filter((conn) => statuses(conn.received()).length === 0);

      const delivered = [];
      for (let i = 0; i < 3; i += 1) delivered.push(await genuine(port, secrets[0]));
      expect(delivered).toEqual([200, 200, 200]);
      expect(await bed.database.count('webhook_deliveries')).toBe(3);
      // The first genuine delivery took the slot of the slow sender reading longest.
      expect(await metric(port, 'webhook_unverified_bodies_evicted_total')).toBe(1);
      // The six on probation already had their 503: the evicted one is a slot holder.
      for (let i = 0; i < 100 && holders.every((c) => statuses(c.received()).length === 0); i += 1)
        await delay(20);
      const evicted = holders.find((conn) => statuses(conn.received()).length > 0);
      expect(evicted, 'no slow sender was evicted').toBeDefined();
      expect(await evicted?.closedWithin(ANSWER_WITHIN_MS), 'evicted one left open').toBeDefined();
      // Our budget, not the sender's fault: 503 with Retry-After, which the platform retries.
      expect(statuses(evicted?.received() ?? '')).toEqual([503]);
      expect(evicted?.received()).toMatch(/retry-after: 1/i);
      expect(answers(slow)).toEqual({ open: 1, '503': 7 });
      expect(await metric(port, 'webhook_unverified_bodies_in_flight')).toBe(1);
    },
  );

  it('when slow senders presenting the secret keep reconnecting, then genuine signed deliveries still get 200', async () => {
    const port = await serve({
      webhookSecrets: [SECRET],
      maxInFlightDeliveries: 4,
      maxUnverifiedBodies: 2,
    });
    // Twelve at once (slots: 2, probation places: 8), each back 100 ms after being closed:
    // the slots are renewed all the time, so they are rarely past their grace period.
    const attack = await persistentSlowSenders(port, 12, {
      headers: WITH_SECRET,
      reconnectAfterMs: 100,
      maxConnections: 400,
    });
    await delay(PAST_GRACE_MS);
    const delivered = [];
    for (let i = 0; i < 5; i += 1) {
      delivered.push(await genuine(port, SECRET));
      await delay(150);
    }
    expect(delivered).toEqual([200, 200, 200, 200, 200]);
    expect(attack.opened(), 'the attack did not reconnect').toBeGreaterThan(12);
    expect(attack.failures(), 'a reconnection failed').toEqual([]);
    expect(await metric(port, 'webhook_deliveries_in_flight')).toBe(0);
    expect(await bed.database.count('webhook_deliveries')).toBe(5);
  });
});

describe('eviction', () => {
  it('when a genuine delivery evicts a stalled body, then that body answers 503 (Retry-After: the platform retries it), its slot and its memory are released at once, and the genuine body fits in the memory it freed', async () => {
    const port = await serve({
      webhookSecrets: [SECRET],
      bodyLimitBytes: 64 * KIB,
      bodyMemoryBudgetBytes: 128 * KIB,
      maxUnverifiedBodies: 2,
    });
    const first = await gzipStaller(port, 60 * KIB, WITH_SECRET);
    await delay(50); // so that the first is the older
    const second = await gzipStaller(port, 60 * KIB, WITH_SECRET);
    await delay(PAST_GRACE_MS);
    const held = await metric(port, 'webhook_body_bytes_in_flight');
    expect(held).toBeGreaterThan(100 * KIB);
    expect(await metric(port, 'webhook_unverified_bodies_in_flight')).toBe(2);

    // A body 4 KiB larger than what is left of the budget: only if the evicted one's memory is
    // free before this body is read does it get 200 rather than 503.
    const size = 128 * KIB - held + 4 * KIB;
    expect(size).toBeLessThan(held / 2);
    expect(await genuine(port, SECRET, size)).toBe(200);

    expect(await first.closedWithin(ANSWER_WITHIN_MS), 'evicted one left open').toBeDefined();
    expect(statuses(first.received())).toEqual([503]);
    expect(statuses(second.received())).toEqual([]);
    expect(await metric(port, 'webhook_unverified_bodies_evicted_total')).toBe(1);
    expect(await metric(port, 'webhook_unverified_bodies_in_flight')).toBe(1);
    expect(await eventually(() => metric(port, 'webhook_body_bytes_in_flight'), held / 2)).toBe(
      held / 2,
    );

    for (const conn of connections.splice(0)) conn.destroy();
    expect(await eventually(() => metric(port, 'webhook_body_bytes_in_flight'), 0)).toBe(0);
    expect(await eventually(() => metric(port, 'webhook_unverified_bodies_in_flight'), 0)).toBe(0);
    expect(await bed.database.count('webhook_deliveries')).toBe(1);
  });

  it('when slow senders arrive while a genuine body is being read within its grace period, then it is not evicted and is stored', async () => {
    const port = await serve({ webhookSecrets: [SECRET], maxUnverifiedBodies: 1 });
    const body = bodyBytes(nppPayment());
    const delivery = await rawConnection(port);
    connections.push(delivery);
    delivery.write(
      'POST /webhooks/NPPReceivePayment HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        `Content-Type: application/json\r\nWebhookid: ${freshWebhookId()}\r\n` +
        `Verification-Signature: ${signBody(body, bed.signer.privateKey)}\r\n` +
        `${WITH_SECRET}Content-Length: ${body.length}\r\n\r\n`,
    );
    delivery.write(body.subarray(0, 20));
    await delay(100);
    // It holds the only slot; these come while it is within its grace period.
    const slow = [];
    for (let i = 0; i < 3; i += 1) slow.push(await slowSender(port, WITH_SECRET));
    await delay(300);
    delivery.write(body.subarray(20));
    expect(await delivery.receivedWithin('Delivery stored', ANSWER_WITHIN_MS)).toBe(true);
    expect(statuses(delivery.received())).toEqual([200]);
    expect(await bed.database.count('webhook_deliveries')).toBe(1);
    expect(await metric(port, 'webhook_unverified_bodies_evicted_total')).toBe(0);
    for (const conn of slow) {
      expect(await conn.closedWithin(ANSWER_WITHIN_MS), 'slow sender left open').toBeDefined();
    }
    expect(answers(slow)).toEqual({ '503': 3 });
  });
});
