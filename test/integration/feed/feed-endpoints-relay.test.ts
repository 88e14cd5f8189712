import { createServer as createTcpServer, type Socket } from 'node:net';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendDelivery } from '../../support/deliveries.ts';
import {
  eventually,
  newWebhookSecret,
  startConsumer,
  type ReceivedEvent,
} from '../../support/feed-consumer.ts';
import { startFeedInstance, type FeedInstance } from '../../support/feed-relay-harness.ts';
import { nppPayment, rejectionRecord } from '../../support/sample-bodies.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * Endpoints as data (docs/feed.md, "Endpoints"): each endpoint in feed_endpoints gets exactly
 * the events its filter selects, in order per business key, on its own: one endpoint's failing
 * or hanging consumer holds up no other. Rows are changed under a running relay (a secret
 * added, an endpoint enabled) and applied without a restart; every attempt is logged.
 */
const bed = useTestbed();
let built: TestApp;
const running: { stop(): Promise<void> }[] = [];

beforeEach(() => {
  built = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

const send = (body: unknown, event = 'NPPReceivePayment') =>
  sendDelivery(built.app, { body: JSON.stringify(body), event, signWith: bed.signer.privateKey });

/** An endpoint row as `feed endpoints add` makes it (0: it starts at the feed's beginning). */
async function addEndpoint(endpoint: {
  name: string;
  url: string;
  types?: string[];
  secrets?: string[];
  enabled?: boolean;
  timeoutMs?: number;
  concurrency?: number;
}): Promise<string> {
  const [row] = await bed.database.query<{ id: string }>(
    `INSERT INTO feed_endpoints (name, kind, target, types, secrets, enabled, timeout_ms, concurrency)
     VALUES ($1, 'http', $2, $3, $4, $5, $6, $7) RETURNING id::text`,
    [
      endpoint.name,
      endpoint.url,
      endpoint.types ?? ['*'],
      endpoint.secrets ?? [],
      endpoint.enabled ?? true,
      endpoint.timeoutMs ?? 2000,
      endpoint.concurrency ?? 4,
    ],
  );
  return row?.id ?? '';
}

async function consumerFor(answer?: (event: ReceivedEvent) => number) {
  const secret = newWebhookSecret();
  const consumer = await startConsumer({ secret: secret.text, ...(answer && { answer }) });
  running.push({ stop: consumer.close });
  return { consumer, secret: secret.text };
}

function relays(): FeedInstance {
  const instance = startFeedInstance({ databaseUrl: bed.database.url });
  running.unshift(instance);
  return instance;
}

interface Recorded {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A raw HTTP consumer on 127.0.0.1: records each POST and answers what `answer` says. */
async function startRecorder(answer: (count: number) => { status: number; body: string }) {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const { status, body } = answer(requests.length);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  running.push({
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return { url: `http://127.0.0.1:${port}/hooks`, requests };
}

/** A socket that accepts connections and never answers (a hung consumer). */
async function startSilentSocket() {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  running.push({
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
}

/** A port nothing listens on (bound, then closed): a connection there is refused. */
async function closedPortUrl(): Promise<string> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hooks`;
}

/** True when `secret` verifies the recorded POST (the stock Standard Webhooks library). */
function verifies(secret: string, request: Recorded): boolean {
  try {
    new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

const positionedCount = async () =>
  Number(
    (
      await bed.database.query<{ n: string }>(
        'SELECT count(*) AS n FROM feed_events WHERE position IS NOT NULL',
      )
    )[0]?.n,
  );

describe('endpoints as data', () => {
  it('when two endpoints have different filters, then each gets exactly the events its filter selects, once, verified', async () => {
    const payments = await consumerFor();
    const rejections = await consumerFor();
    await addEndpoint({
      name: 'payments',
      url: payments.consumer.url,
      types: ['payment.*'],
      secrets: [payments.secret],
    });
    await addEndpoint({
      name: 'rejections',
      url: rejections.consumer.url,
      types: ['credit_rejection.received', 'conflict.detected'],
      secrets: [rejections.secret],
    });
    relays();
    const payment = nppPayment();
    await send(payment).expect(200);
    await send({ ...payment, Amount: 3 }).expect(200); // conflict.detected
    await send(nppPayment()).expect(200);
    await send([rejectionRecord(), rejectionRecord()], 'NPPCreditRejections').expect(200);

    const types = async () =>
      bed.database.query<{ id: string; type: string }>(
        'SELECT id::text, type FROM feed_events ORDER BY position',
      );
    await eventually(async () => (await positionedCount()) === 5);
    const all = await types();
    const idsOf = (wanted: (type: string) => boolean) =>
      all
        .filter((e) => wanted(e.type))
        .map((e) => `evt_${e.id}`)
        .sort();
    const forPayments = idsOf((t) => t === 'payment.received');
    const forRejections = idsOf(
      (t) => t === 'credit_rejection.received' || t === 'conflict.detected',
    );
    expect(forPayments).toHaveLength(2);
    expect(forRejections).toHaveLength(3); // two rejections and the conflict
    await eventually(
      () => payments.consumer.accepted().length >= 2 && rejections.consumer.accepted().length >= 3,
    );
    await new Promise((resolve) => setTimeout(resolve, 300)); // anything more would show by now
    expect(payments.consumer.received.map((e) => e.webhookId).sort()).toEqual(forPayments);
    expect(rejections.consumer.received.map((e) => e.webhookId).sort()).toEqual(forRejections);
    expect(payments.consumer.unverified() + rejections.consumer.unverified()).toBe(0);
  }, 60_000);

  it('when one endpoint answers 503 and another hangs, then a third still gets every event at once, and theirs wait for them', async () => {
    const healthy = await consumerFor();
    const failing = await startRecorder(() => ({ status: 503, body: 'down' }));
    await addEndpoint({ name: 'failing', url: failing.url });
    await addEndpoint({
      name: 'hung',
      url: await startSilentSocket(),
      timeoutMs: 10_000,
      concurrency: 1,
    });
    await addEndpoint({ name: 'healthy', url: healthy.consumer.url, secrets: [healthy.secret] });
    relays();
    const started = Date.now();
    for (let i = 0; i < 5; i += 1) await send(nppPayment()).expect(200);

    await eventually(() => healthy.consumer.accepted().length === 5, 20_000);
    // Well inside the hung endpoint's 10 s timeout: it held up nothing.
    expect(Date.now() - started).toBeLessThan(8000);
    const states = await bed.database.query<{ name: string; state: string; attempts: number }>(
      `SELECT p.name, x.state, x.attempts FROM feed_endpoint_events x
       JOIN feed_endpoints p ON p.id = x.endpoint_id WHERE p.name IN ('failing', 'hung')`,
    );
    expect(states.filter((s) => s.name === 'failing')).toHaveLength(5);
    expect(states.every((s) => s.state === 'pending')).toBe(true);
    expect(failing.requests.length).toBeGreaterThanOrEqual(5);
    // One in flight at a time (concurrency 1), waiting for an answer that never comes.
    expect(states.filter((s) => s.name === 'hung' && s.attempts > 0)).toHaveLength(1);
  }, 60_000);

  it('when a secret is added to a running endpoint, then the next attempt is signed with both, each verifying on its own', async () => {
    const [old, added] = [newWebhookSecret().text, newWebhookSecret().text];
    const recorder = await startRecorder(() => ({ status: 204, body: '' }));
    const id = await addEndpoint({ name: 'rotating', url: recorder.url, secrets: [old] });
    const instance = relays();
    await send(nppPayment()).expect(200);
    await eventually(() => recorder.requests.length === 1);
    const [before] = recorder.requests;
    expect(verifies(old, before!)).toBe(true);
    expect(verifies(added, before!)).toBe(false);

    await bed.database.query(
      'UPDATE feed_endpoints SET secrets = array_append(secrets, $2) WHERE id = $1',
      [id, added],
    );
    await instance.relays.refresh();
    await send(nppPayment()).expect(200);
    await eventually(() => recorder.requests.length === 2);
    const after = recorder.requests[1]!;
    expect(verifies(old, after)).toBe(true);
    expect(verifies(added, after)).toBe(true);
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(2);
  }, 30_000);

  it('when attempts fail and then succeed, then the attempt log has each: status, the first 256 bytes of the answer, the error', async () => {
    const busy = `busy ${'x'.repeat(400)}`;
    const recorder = await startRecorder((count) =>
      count === 1 ? { status: 503, body: busy } : { status: 200, body: 'thanks' },
    );
    const answering = await addEndpoint({ name: 'answering', url: recorder.url });
    const refusing = await addEndpoint({ name: 'refusing', url: await closedPortUrl() });
    relays();
    await send(nppPayment()).expect(200);

    const attempts = (endpointId: string) =>
      bed.database.query<{
        attempt: number;
        outcome: string;
        status: number | null;
        response_excerpt: string | null;
        error: string | null;
        duration_ms: number;
        event_id: string;
      }>(
        `SELECT attempt, outcome, status, response_excerpt, error, duration_ms, event_id::text
         FROM feed_attempts WHERE endpoint_id = $1 ORDER BY id`,
        [endpointId],
      );
    await eventually(async () => (await attempts(answering)).length === 2);
    await eventually(async () => (await attempts(refusing)).length >= 2);
    const [event] = await bed.database.query<{ id: string }>('SELECT id::text FROM feed_events');
    expect(await attempts(answering)).toEqual([
      expect.objectContaining({
        attempt: 1,
        outcome: 'failed',
        status: 503,
        response_excerpt: busy.slice(0, 256),
        error: 'HTTP 503',
        event_id: event?.id,
      }),
      expect.objectContaining({
        attempt: 2,
        outcome: 'sent',
        status: 200,
        response_excerpt: 'thanks',
        error: null,
      }),
    ]);
    const refused = await attempts(refusing);
    expect(refused.slice(0, 2)).toEqual([
      expect.objectContaining({
        attempt: 1,
        outcome: 'failed',
        status: null,
        error: 'ECONNREFUSED',
      }),
      expect.objectContaining({
        attempt: 2,
        outcome: 'failed',
        status: null,
        error: 'ECONNREFUSED',
      }),
    ]);
    expect(refused.every((a) => a.response_excerpt === null && a.duration_ms >= 0)).toBe(true);
  }, 30_000);

  it('when a disabled endpoint is enabled, then it catches up from where its cursor was, in order', async () => {
    const late = await consumerFor();
    const id = await addEndpoint({
      name: 'late',
      url: late.consumer.url,
      secrets: [late.secret],
      enabled: false,
    });
    const instance = relays();
    for (let i = 0; i < 3; i += 1) await send(nppPayment()).expect(200);
    await eventually(async () => (await positionedCount()) === 3);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(late.consumer.received).toEqual([]);
    expect(
      await bed.database.query('SELECT fanned_through FROM feed_endpoints WHERE id = $1', [id]),
    ).toEqual([{ fanned_through: '0' }]);

    await bed.database.query('UPDATE feed_endpoints SET enabled = true WHERE id = $1', [id]);
    await instance.relays.refresh();
    await eventually(() => late.consumer.accepted().length === 3);
    expect(late.consumer.accepted().map((e) => e.position)).toEqual([1, 2, 3]);
  }, 30_000);

  it('when an endpoint keeps failing one key, then that key waits there in order while another endpoint gets it at once', async () => {
    const payment = nppPayment();
    const key = `NPPReceivePayment/${payment.TransactionId}`;
    let refusing = true;
    const slow = await consumerFor((event) => (refusing && event.key === key ? 503 : 204));
    const fast = await consumerFor();
    await addEndpoint({ name: 'slow', url: slow.consumer.url, secrets: [slow.secret] });
    await addEndpoint({ name: 'fast', url: fast.consumer.url, secrets: [fast.secret] });
    relays();
    await send(payment).expect(200);
    await send({ ...payment, Amount: 4 }).expect(200); // conflict.detected, the same key
    await send(nppPayment()).expect(200); // another key

    await eventually(() => fast.consumer.accepted().length === 3);
    await eventually(() => slow.consumer.received.filter((e) => e.key === key).length >= 3);
    // Retried, and never the key's later event before its first is taken.
    expect(slow.consumer.received.filter((e) => e.key === key).map((e) => e.type)).toEqual(
      Array(slow.consumer.received.filter((e) => e.key === key).length).fill('payment.received'),
    );
    expect(slow.consumer.accepted().filter((e) => e.key !== key)).toHaveLength(1);
    refusing = false;
    await eventually(() => slow.consumer.accepted().length === 3);
    for (const consumer of [slow.consumer, fast.consumer]) {
      expect(
        consumer
          .accepted()
          .filter((e) => e.key === key)
          .map((e) => e.type),
      ).toEqual(['payment.received', 'conflict.detected']);
    }
  }, 30_000);
});
