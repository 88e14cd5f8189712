import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp, type AppDeps } from '../../../src/receiver/http/app.ts';
import { createCaptureWriter } from '../../../src/capture/capture-writer.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { createMetrics } from '../../../src/receiver/http/metrics.ts';
import { listen } from '../../../src/lib/http/server.ts';
import { shutDownGracefully } from '../../../src/lib/http/shutdown.ts';
import { createDatabaseWithPool } from '../../../src/lib/database/database.ts';
import { createConfiguredKeySource } from '../../../src/receiver/verification/key-source.ts';
import { bodyBytes, freshWebhookId, sendDelivery } from '../../support/deliveries.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { signBody } from '../../support/signing.ts';
import { buildTestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

const bed = useTestbed();
const TIMEOUTS = {
  keepAliveTimeoutMs: 5000,
  headersTimeoutMs: 5000,
  requestTimeoutMs: 5000,
  shutdownTimeoutMs: 5000,
};

/** An app on the test database with a pinned key, silent logs and the given extras. */
function appWith(
  config: Partial<AppDeps['config']> = {},
  extras: Partial<Omit<AppDeps, 'config'>> = {},
) {
  return createApp({
    config: { bodyLimitBytes: 65_536, webhookSecrets: [], ...config },
    db: bed.database.db,
    keys: createConfiguredKeySource(bed.signer.publicKey, Date.now),
    logger: createLogger('silent'),
    clock: { now: () => new Date() },
    ...extras,
  });
}

/** Opens a raw connection and sends a delivery's headers and all but the last byte of its body. */
async function startSlowDelivery(port: number, webhookId: string, extraHeaders: string[] = []) {
  const body = bodyBytes(nppPayment());
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk.toString()));
  socket.write(
    [
      'POST /webhooks/NPPReceivePayment HTTP/1.1',
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      `Content-Length: ${body.length}`,
      `Webhookid: ${webhookId}`,
      `Verification-Signature: ${signBody(body, bed.signer.privateKey)}`,
      ...extraHeaders,
      '',
      '',
    ].join('\r\n'),
  );
  socket.write(body.subarray(0, -1));
  return {
    finish: () => socket.write(body.subarray(-1)),
    send: (text: string) => socket.write(text),
    answer: () => answer,
    closed: new Promise<void>((resolve) => socket.once('close', () => resolve())),
    destroy: () => socket.destroy(),
  };
}

async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function untilAsync(predicate: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('metrics', () => {
  it('when deliveries are answered, then /metrics counts them by event and outcome, with latency, key fetches and pool use', async () => {
    const { db, pool } = createDatabaseWithPool({ url: bed.database.url, poolMax: 3 });
    const metrics = createMetrics({ pool });
    const app = appWith({}, { db, metrics });
    const webhookId = freshWebhookId();
    const body = bodyBytes(nppPayment());
    await sendDelivery(app, { body, webhookId, signWith: bed.signer.privateKey }).expect(200);
    await sendDelivery(app, { body, webhookId, signWith: bed.signer.privateKey }).expect(200);
    await sendDelivery(app, { body: '{', signWith: bed.signer.privateKey }).expect(400);
    await sendDelivery(app, { event: 'SomeNewEvent', body: '{}' }).expect(401);

    const res = await request(app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const text = res.text;
    expect(text).toContain(
      'webhook_deliveries_total{event="NPPReceivePayment",outcome="stored"} 1',
    );
    expect(text).toContain(
      'webhook_deliveries_total{event="NPPReceivePayment",outcome="duplicate"} 1',
    );
    expect(text).toContain(
      'webhook_deliveries_total{event="NPPReceivePayment",outcome="quarantined"} 1',
    );
    // An event name from the URL never becomes a label of its own.
    expect(text).toContain('webhook_deliveries_total{event="unmodelled",outcome="unauthorised"} 1');
    expect(text).not.toContain('SomeNewEvent');
    expect(text).toMatch(/http_request_duration_seconds_count\{route="webhook",status="200"\} 2/);
    expect(text).toContain('signing_key_fetches_total{result="failed"} 0');
    expect(text).toMatch(/db_pool_connections \d+/);
    expect(text).toMatch(/webhook_write_batch_size_count \d+/);
    await db.destroy();
  });

  it('when metrics are served on a separate port, then the public app does not expose them', async () => {
    const { app } = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
    expect((await request(app).get('/metrics')).status).toBe(200);
    const hidden = appWith({ exposeMetrics: false });
    expect((await request(hidden).get('/metrics')).status).toBe(404);
  });
});

describe('overload', () => {
  it('when more deliveries are in flight than allowed, then the extra one gets a quick 503 and is not stored; later ones are served', async () => {
    // A delivery slot is taken once the body is in (bodies are read in places of their own,
    // whatever the secret; see edge-unverified-bodies.test.ts): the first delivery holds the
    // only slot while its write waits for a lock held here.
    const secret = 'Basic b3ZlcmxvYWQ=';
    const app = appWith({ maxInFlightDeliveries: 1, webhookSecrets: [secret] });
    const server = await listen(app, { port: 0, host: '127.0.0.1', timeouts: TIMEOUTS });
    const { port } = server.address() as AddressInfo;
    const lock = new pg.Client({ connectionString: bed.database.url });
    await lock.connect();
    try {
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE webhook_deliveries IN EXCLUSIVE MODE');
      const slow = await startSlowDelivery(port, freshWebhookId(), [`Authorisation: ${secret}`]);
      slow.finish();
      await untilAsync(
        async () =>
          /^webhook_deliveries_in_flight 1$/m.test((await request(app).get('/metrics')).text),
        'the first delivery to hold the only slot',
      );

      const res = await fetch(`http://127.0.0.1:${port}/webhooks/NPPReceivePayment`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Webhookid: '77', Authorisation: secret },
        body: '{}',
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(((await res.json()) as { status: string }).status).toBe('ServiceUnavailable');

      await lock.query('ROLLBACK');
      await until(() => slow.answer().includes('\r\n\r\n'), 'the slow delivery to be answered');
      expect(slow.answer()).toMatch(/^HTTP\/1.1 200/);
      slow.destroy();
      const rows = await bed.database.query<{ webhook_id: string }>(
        'SELECT webhook_id FROM webhook_deliveries',
      );
      expect(rows.map((row) => row.webhook_id)).not.toContain('77');
    } finally {
      await lock.end();
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('when SIGTERM arrives mid-delivery, then readiness fails at once, new connections are refused, the delivery commits, then the pool closes and the process exits 0', async () => {
    let shuttingDown = false;
    const app = appWith({}, { isShuttingDown: () => shuttingDown });
    const server = await listen(app, { port: 0, host: '127.0.0.1', timeouts: TIMEOUTS });
    const { port } = server.address() as AddressInfo;
    const webhookId = freshWebhookId();
    const slow = await startSlowDelivery(port, webhookId);
    await new Promise((resolve) => setTimeout(resolve, 50));

    const events: string[] = [];
    let exitCode: number | undefined;
    const done = shutDownGracefully(
      {
        servers: [server],
        beginShutdown: () => {
          shuttingDown = true;
          events.push('not ready');
        },
        release: () => {
          events.push('released');
          return Promise.resolve();
        },
        timeoutMs: 5000,
        logger: createLogger('silent'),
        exit: (code) => {
          exitCode = code;
        },
      },
      'SIGTERM',
    );

    expect(events).toEqual(['not ready']);
    expect((await request(app).get('/readyz')).status).toBe(503);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();

    slow.finish();
    await done;
    await until(() => slow.answer().includes('\r\n\r\n'), 'the answer to arrive');
    expect(slow.answer()).toMatch(/^HTTP\/1.1 200/);
    expect(events).toEqual(['not ready', 'released']);
    expect(exitCode).toBe(0);
    const rows = await bed.database.query(
      'SELECT webhook_id FROM webhook_deliveries WHERE webhook_id = $1',
      [webhookId],
    );
    expect(rows).toHaveLength(1);
  });
  it('when a balancer keeps sending on a kept-alive connection after SIGTERM, then it is answered with Connection: close and shutdown still completes', async () => {
    const app = appWith();
    const server = await listen(app, { port: 0, host: '127.0.0.1', timeouts: TIMEOUTS });
    const { port } = server.address() as AddressInfo;
    // A busy balancer: a delivery is in progress on a kept-alive connection when SIGTERM comes,
    // and the next request follows on the same connection as soon as the answer arrives.
    const slow = await startSlowDelivery(port, freshWebhookId());
    let exitCode: number | undefined;
    const started = Date.now();
    const done = shutDownGracefully(
      {
        servers: [server],
        beginShutdown: () => {},
        release: async () => {},
        timeoutMs: 3000,
        logger: createLogger('silent'),
        exit: (code) => {
          exitCode ??= code;
        },
      },
      'SIGTERM',
    );
    slow.finish();
    await until(() => slow.answer().includes('Delivery stored'), 'the delivery to be answered');
    slow.send('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    await done;
    const closeAnswers = (slow.answer().match(/connection: close/gi) ?? []).length;
    expect(exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(closeAnswers).toBe(1);
    slow.destroy();
  });
});

describe('behind a proxy', () => {
  it('when TRUST_PROXY trusts the balancer, then the forwarded client address is logged and stored', async () => {
    const built = buildTestApp({
      db: bed.database.db,
      publicKey: bed.signer.publicKey,
      trustProxy: 'loopback',
    });
    await sendDelivery(built.app, {
      body: nppPayment(),
      signWith: bed.signer.privateKey,
      headers: { 'X-Forwarded-For': '203.0.113.9' },
    }).expect(200);
    expect(built.logs.find((line) => line.outcome === 'stored')).toMatchObject({
      remoteAddress: '203.0.113.9',
    });
    const [row] = await bed.database.query('SELECT remote_address FROM webhook_deliveries');
    expect(row).toEqual({ remote_address: '203.0.113.9' });
  });

  it('when the proxy is not trusted, then a forged X-Forwarded-For is ignored', async () => {
    const built = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
    await sendDelivery(built.app, {
      body: nppPayment(),
      signWith: bed.signer.privateKey,
      headers: { 'X-Forwarded-For': '203.0.113.9' },
    }).expect(200);
    expect(built.logs.find((line) => line.outcome === 'stored')?.remoteAddress).not.toBe(
      '203.0.113.9',
    );
  });

  it.each([
    ['trusted (loopback)', 'loopback', true],
    ['not trusted (the default)', false, false],
    ['trusted by address, but not this one', '10.0.0.0/8', false],
  ] as const)(
    'when the sender of an X-Request-Id is %s, then the id is used only from a trusted proxy',
    async (_label, trustProxy, used) => {
      const built = buildTestApp({
        db: bed.database.db,
        publicKey: bed.signer.publicKey,
        trustProxy,
      });
      const res = await sendDelivery(built.app, {
        body: nppPayment(),
        signWith: bed.signer.privateKey,
        headers: { 'X-Request-Id': 'lb-req-42' },
      }).expect(200);
      const id = res.headers['x-request-id'];
      if (used) expect(id).toBe('lb-req-42');
      else expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(built.logs.at(-1)?.requestId).toBe(id);
      const [row] = await bed.database.query('SELECT request_id FROM webhook_deliveries');
      expect(row).toEqual({ request_id: id });
    },
  );

  it('when no usable X-Request-Id is sent, then one is generated, echoed and on the log line', async () => {
    const built = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
    for (const offered of [undefined, 'bad id with spaces', 'x'.repeat(200)]) {
      const res = await sendDelivery(built.app, {
        body: nppPayment(),
        signWith: bed.signer.privateKey,
        headers: offered === undefined ? {} : { 'X-Request-Id': offered },
      });
      const id = res.headers['x-request-id'];
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(built.logs.at(-1)?.requestId).toBe(id);
    }
  });
});

describe('capture', () => {
  it('when capture is on, then each authenticated delivery is written as a fixture file, and unauthenticated ones are not', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'capture-'));
    try {
      const keys = createConfiguredKeySource(bed.signer.publicKey, Date.now);
      const app = appWith(
        { webhookSecrets: ['Basic c2VjcmV0'] },
        { keys, capture: createCaptureWriter({ dir, logger: createLogger('silent'), keys }) },
      );
      const secret = 'Basic c2VjcmV0';
      await sendDelivery(app, {
        body: nppPayment(),
        signWith: bed.signer.privateKey,
        secret,
      }).expect(200);
      await sendDelivery(app, { body: '{', signWith: bed.signer.privateKey, secret }).expect(400);
      await sendDelivery(app, {
        body: nppPayment(),
        signWith: bed.signer.privateKey,
        secret: 'x',
      }).expect(401);

      await until(() => readdirSync(dir).length >= 2, 'capture files');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const files = readdirSync(dir).map((file) => readFileSync(path.join(dir, file), 'utf8'));
      expect(files).toHaveLength(2);
      expect(
        files
          .map((text) => (JSON.parse(text) as { expected: { status: number } }).expected.status)
          .sort(),
      ).toEqual([200, 400]);
      expect(files.join('\n')).not.toContain('c2VjcmV0');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
