import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../../../src/lib/http/server.ts';
import { freshWebhookId } from '../../support/deliveries.ts';
import { rawConnection as rawConnectionTo, statuses } from '../../support/raw-connection.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { signBody } from '../../support/signing.ts';
import { buildTestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * Slow, truncated and lying senders against a real socket served by `listen()` with small
 * timeouts. Raw HTTP over node:net, so nothing between the test and the server fixes the bytes.
 */
const TIMEOUT_MS = 1000;
/** How late past a timeout a cut may come: Node checks its timers on an interval. */
const SLACK_MS = 2500;

const bed = useTestbed();
let server: Server;
let port: number;

beforeAll(async () => {
  const { app } = buildTestApp({
    db: bed.database.db,
    publicKey: bed.signer.publicKey,
    bodyLimitBytes: 16 * 1024,
  });
  server = await listen(app, {
    port: 0,
    host: '127.0.0.1',
    timeouts: {
      requestTimeoutMs: TIMEOUT_MS,
      headersTimeoutMs: TIMEOUT_MS,
      keepAliveTimeoutMs: TIMEOUT_MS,
    },
  });
  port = (server.address() as AddressInfo).port;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const rawConnection = () => rawConnectionTo(port);

/** A valid, signed NPPReceivePayment: stored if the server ever took it as a whole body. */
function signedDelivery(contentLength?: number) {
  const body = Buffer.from(JSON.stringify(nppPayment()));
  const head =
    'POST /webhooks/NPPReceivePayment HTTP/1.1\r\n' +
    'Host: 127.0.0.1\r\n' +
    'Content-Type: application/json\r\n' +
    `Webhookid: ${freshWebhookId()}\r\n` +
    `Verification-Signature: ${signBody(body, bed.signer.privateKey)}\r\n` +
    `Content-Length: ${contentLength ?? body.length}\r\n\r\n`;
  return { head, body };
}

/** Nothing stored, also a moment later: a cut request must not finish in the background. */
async function expectNothingStoredNowOrLater() {
  await bed.expectNothingStored();
  await delay(200);
  await bed.expectNothingStored();
}

describe('slow senders (slowloris)', () => {
  it('when the headers are dribbled a byte at a time, then the connection is cut (or 408) within the headers timeout', async () => {
    const conn = await rawConnection();
    try {
      conn.write('POST /webhooks/NPPReceivePayment HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      const dribbling = conn.dribble(Buffer.from(`X-Slow: ${'a'.repeat(400)}`), 50);
      const closedAfter = await conn.closedWithin(TIMEOUT_MS + SLACK_MS);
      expect(closedAfter, 'connection still open').toBeDefined();
      await dribbling; // stops once the connection is gone
      expect(statuses(conn.received())).toEqual(conn.received() === '' ? [] : [408]);
      await expectNothingStoredNowOrLater();
    } finally {
      conn.destroy();
    }
  });

  it('when a signed body is dribbled slower than the request timeout allows, then it is cut (or 408) in time and nothing is stored', async () => {
    const { head, body } = signedDelivery();
    const conn = await rawConnection();
    try {
      conn.write(head);
      // ~150 bytes at 50 ms each: seven seconds for a body the server must give up on after one.
      const dribbling = conn.dribble(body, 50);
      const closedAfter = await conn.closedWithin(TIMEOUT_MS + SLACK_MS);
      expect(closedAfter, 'connection still open').toBeDefined();
      await dribbling;
      expect(statuses(conn.received())).toEqual(conn.received() === '' ? [] : [408]);
      await expectNothingStoredNowOrLater();
    } finally {
      conn.destroy();
    }
  });
});

describe('truncated bodies', () => {
  it('when fewer bytes than Content-Length arrive and the client half-closes, then the request ends at once and nothing is stored', async () => {
    // The bytes that do arrive are a complete, validly signed delivery on their own.
    const { head, body } = signedDelivery();
    const lying = head.replace(/Content-Length: \d+/, `Content-Length: ${body.length + 100}`);
    const conn = await rawConnection();
    try {
      conn.write(lying);
      conn.write(body);
      conn.socket.end();
      const closedAfter = await conn.closedWithin(TIMEOUT_MS);
      expect(closedAfter, 'connection still open').toBeDefined();
      expect(statuses(conn.received()).filter((status) => status < 400)).toEqual([]);
      await expectNothingStoredNowOrLater();
    } finally {
      conn.destroy();
    }
  });

  it('when fewer bytes than Content-Length arrive and the client goes silent, then it is cut (or 408) within the request timeout and nothing is stored', async () => {
    const { head, body } = signedDelivery();
    const lying = head.replace(/Content-Length: \d+/, `Content-Length: ${body.length + 100}`);
    const conn = await rawConnection();
    try {
      conn.write(lying);
      conn.write(body);
      const closedAfter = await conn.closedWithin(TIMEOUT_MS + SLACK_MS);
      expect(closedAfter, 'connection still open').toBeDefined();
      expect(statuses(conn.received())).toEqual(conn.received() === '' ? [] : [408]);
      await expectNothingStoredNowOrLater();
    } finally {
      conn.destroy();
    }
  });
});

describe('Content-Length lies', () => {
  it('when more bytes follow than Content-Length declares, then they are the next request, not the body', async () => {
    const { head, body } = signedDelivery();
    // Were these bytes read into the body, the signature would fail and nothing be stored.
    const next = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';
    const conn = await rawConnection();
    try {
      conn.write(Buffer.concat([Buffer.from(head), body, Buffer.from(next)]));
      expect(await conn.closedWithin(TIMEOUT_MS + SLACK_MS), 'connection still open').toBeDefined();
      expect(statuses(conn.received())).toEqual([200, 200]);
      expect(conn.received()).toContain('"statusDescription":"Alive"');
      const rows = await bed.database.query<{ raw_body: Buffer }>(
        'SELECT raw_body FROM webhook_deliveries',
      );
      expect(rows.map((row) => row.raw_body.toString('latin1'))).toEqual([body.toString('latin1')]);
    } finally {
      conn.destroy();
    }
  });

  it('when bytes that are not HTTP follow the declared body, then they are refused, never stored', async () => {
    const { head, body } = signedDelivery();
    const extra = ',"Amount":999999,"TransactionId":"SMUGGLED"}\r\n\r\n';
    const conn = await rawConnection();
    try {
      conn.write(Buffer.concat([Buffer.from(head), body, Buffer.from(extra)]));
      // Node answers the junk with 400 and drops the connection, possibly before the first
      // answer is written; the first request's bytes were all there, so it may still be stored.
      expect(await conn.closedWithin(TIMEOUT_MS + SLACK_MS), 'connection still open').toBeDefined();
      expect(statuses(conn.received()).filter((status) => status !== 200)).toEqual([400]);
      await delay(200);
      const stored = await bed.database.query<{ raw_body: Buffer }>(
        'SELECT raw_body FROM webhook_deliveries UNION ALL SELECT raw_body FROM quarantined_deliveries',
      );
      for (const row of stored) expect(row.raw_body.toString('latin1')).not.toContain('SMUGGLED');
    } finally {
      conn.destroy();
    }
  });

  it('when Content-Length declares fewer bytes than were signed, then what was read fails the signature and nothing is stored', async () => {
    const { head, body } = signedDelivery();
    const short = head.replace(/Content-Length: \d+/, `Content-Length: ${body.length - 10}`);
    const conn = await rawConnection();
    try {
      conn.write(Buffer.concat([Buffer.from(short), body]));
      expect(await conn.closedWithin(TIMEOUT_MS + SLACK_MS), 'connection still open').toBeDefined();
      // 401 for the declared bytes, 400 for the leftover (Node may send only the latter).
      expect(
        statuses(conn.received()).filter((status) => status !== 400 && status !== 401),
      ).toEqual([]);
      await expectNothingStoredNowOrLater();
    } finally {
      conn.destroy();
    }
  });

  it.each([
    ['Content-Length and Transfer-Encoding together', 'Transfer-Encoding: chunked\r\n'],
    ['two different Content-Lengths', 'Content-Length: 5\r\n'],
    ['a negative Content-Length', null],
  ])('when a request carries %s, then 400 and nothing is stored', async (_label, addition) => {
    const { head, body } = signedDelivery();
    const crafted =
      addition === null
        ? head.replace(/Content-Length: \d+/, 'Content-Length: -1')
        : head.replace('\r\n\r\n', `\r\n${addition}\r\n`);
    const conn = await rawConnection();
    try {
      conn.write(Buffer.concat([Buffer.from(crafted), body]));
      expect(await conn.closedWithin(TIMEOUT_MS + SLACK_MS), 'connection still open').toBeDefined();
      expect(statuses(conn.received())).toEqual([400]);
      await expectNothingStoredNowOrLater();
    } finally {
      conn.destroy();
    }
  });
});

describe('request timeout bounds the body (item: time)', () => {
  /** A server whose headers timeout is the larger, as the old defaults were (66 s vs 30 s). */
  async function serverWithLargerHeadersTimeout(appTimeoutMs?: number) {
    const { app } = buildTestApp({
      db: bed.database.db,
      publicKey: bed.signer.publicKey,
      bodyLimitBytes: 16 * 1024,
      ...(appTimeoutMs !== undefined && { config: { server: { requestTimeoutMs: appTimeoutMs } } }),
    });
    return listen(app, {
      port: 0,
      host: '127.0.0.1',
      timeouts: {
        requestTimeoutMs: TIMEOUT_MS,
        headersTimeoutMs: 8 * TIMEOUT_MS,
        keepAliveTimeoutMs: TIMEOUT_MS,
      },
    });
  }

  it.each([
    ['listen() alone', undefined],
    ['the body reader (app told the request timeout)', TIMEOUT_MS],
  ])(
    'when the headers timeout is larger than the request timeout (%s), then a dribbled body is still cut within the request timeout and nothing is stored',
    async (_label, appTimeoutMs) => {
      const slowServer = await serverWithLargerHeadersTimeout(appTimeoutMs);
      const { head, body } = signedDelivery();
      const conn = await rawConnectionTo((slowServer.address() as AddressInfo).port);
      try {
        conn.write(head);
        const dribbling = conn.dribble(body, 50);
        const closedAfter = await conn.closedWithin(TIMEOUT_MS + SLACK_MS);
        expect(closedAfter, 'connection still open').toBeDefined();
        await dribbling;
        expect(statuses(conn.received()).filter((status) => status !== 408)).toEqual([]);
        await expectNothingStoredNowOrLater();
      } finally {
        conn.destroy();
        slowServer.closeAllConnections();
        slowServer.close();
      }
    },
  );

  it('when the app is told the request timeout, then its body reader answers 408 in the envelope even on a server without timeouts', async () => {
    const { app } = buildTestApp({
      db: bed.database.db,
      publicKey: bed.signer.publicKey,
      config: { server: { requestTimeoutMs: TIMEOUT_MS } },
    });
    // A bare node server: its own request timeout is 300 s.
    const bare = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => bare.once('listening', resolve));
    const { head, body } = signedDelivery();
    const conn = await rawConnectionTo((bare.address() as AddressInfo).port);
    try {
      conn.write(head);
      const dribbling = conn.dribble(body, 50);
      expect(await conn.closedWithin(TIMEOUT_MS + SLACK_MS), 'connection still open').toBeDefined();
      await dribbling;
      expect(statuses(conn.received())).toEqual([408]);
      expect(conn.received()).toContain('"status":"RequestTimeout"');
      await expectNothingStoredNowOrLater();
    } finally {
      conn.destroy();
      bare.closeAllConnections();
      bare.close();
    }
  });
});
