import { connect } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { selectsType } from '../../../src/feed/endpoints/type-filter.ts';
import { simulate } from '../../../tools/sandbox/simulate/simulate.ts';
import { startReceiver, type TestReceiver } from '../../../tools/sandbox/test/receiver.ts';
import { startTestSandbox, type TestSandbox } from '../../../tools/sandbox/test/support.ts';
import {
  directCreditBatch,
  directCreditBatchId,
  directCreditRecord,
} from '../../../tools/sandbox/webhooks/payloads.ts';
import { PUBLIC_KEY_PATH } from '../../../src/lib/platform-key.ts';
import { feedOutput } from '../../support/command-line.ts';
import { eventually, newWebhookSecret, startConsumer } from '../../support/feed-consumer.ts';
import { startFeedInstance } from '../../support/feed-relay-harness.ts';
import { startNatsServer, type TestNatsServer } from '../../support/nats-server.ts';
import { readStream } from '../../support/nats-stream.ts';
import { deliverSigned, SUBSCRIPTION_SECRET } from '../../support/provider-sandbox.ts';
import {
  holdRabbitMq,
  openTestRabbitMq,
  RABBITMQ_URL,
  type TestRabbitMq,
} from '../../support/rabbitmq.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * The feed as a delivery platform, end to end (issue 26, "Done when"): the sandbox's simulate
 * sends to the real receiver on a socket, with quarantined deliveries, direct-credit batches and
 * a conflict besides; four endpoints added by `feed endpoints add` (two HTTP consumers with
 * different filters, a JetStream stream, a RabbitMQ queue) each get exactly the events their
 * filter selects, at least once, in order per business key, while the `ops` consumer is down for
 * seconds and the NATS server is killed (SIGKILL) and started again on its store. A secret is
 * rotated and retired mid-run, a range replayed, and the down period's failures are in the
 * attempt log.
 */

const bed = useTestbed();
const feed = (...args: string[]) => feedOutput(bed.database.db, ...args);

const STREAM = 'E2E_FEED';
const FILTERS = {
  ledger: ['payment.*', 'direct_credit.*'],
  ops: ['quarantine.*', 'credit_rejection.*'],
  'bus-nats': ['*'],
  'bus-rabbit': ['payment.*'],
} as const;
type EndpointName = keyof typeof FILTERS;
const NAMES = Object.keys(FILTERS) as EndpointName[];

let nats: TestNatsServer;
let rabbit: TestRabbitMq;
let release: () => void;
const running: { stop(): Promise<void> | void }[] = [];

beforeAll(async () => {
  release = await holdRabbitMq();
  [nats, rabbit] = await Promise.all([startNatsServer(), openTestRabbitMq()]);
});
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});
afterAll(async () => {
  await rabbit?.close();
  await nats?.stop();
  release?.();
});

/** One event as an endpoint got it: its id, its position, its business key. */
interface Arrival {
  id: string;
  position: number;
  key: string;
}

/** An event body as the feed renders it (the envelope's fields this test reads). */
function arrivalOf(id: string, body: string): Arrival {
  const event = JSON.parse(body) as {
    position: string;
    data: { eventName: string; businessKey: string };
  };
  return {
    id,
    position: Number(event.position),
    key: `${event.data.eventName}/${event.data.businessKey}`,
  };
}

/**
 * Where arrivals break the order per business key: an event whose first arrival came after the
 * first arrival of a later event (higher position) of its key. Empty when in order.
 */
function outOfOrder(arrivals: readonly Arrival[]): string[] {
  const seen = new Set<string>();
  const lastPosition = new Map<string, number>();
  const problems: string[] = [];
  for (const a of arrivals) {
    if (seen.has(a.id)) continue;
    seen.add(a.id);
    const before = lastPosition.get(a.key) ?? 0;
    if (a.position < before) problems.push(`${a.key}: ${a.position} after ${before}`);
    lastPosition.set(a.key, Math.max(before, a.position));
  }
  return problems;
}

const distinctIds = (arrivals: readonly Arrival[]) =>
  [...new Set(arrivals.map((a) => a.id))].sort();

/** Every event with a position: its id as the feed sends it, type and position. */
async function positionedEvents() {
  return (
    await bed.database.query<{ id: string; type: string; position: string }>(
      'SELECT id::text, type, position::text FROM feed_events WHERE position IS NOT NULL ORDER BY position',
    )
  ).map((e) => ({ id: `evt_${e.id}`, type: e.type, position: Number(e.position) }));
}

/** The ids `name`'s filter selects, from the database: what it must get, no more, no less. */
async function expectedIds(name: EndpointName): Promise<string[]> {
  return (await positionedEvents())
    .filter((e) => selectsType(FILTERS[name], e.type))
    .map((e) => e.id)
    .sort();
}

const attemptCount = async (name: EndpointName, outcome: 'sent' | 'failed') =>
  Number(
    (
      await bed.database.query<{ n: string }>(
        `SELECT count(*) AS n FROM feed_attempts a JOIN feed_endpoints e ON e.id = a.endpoint_id
         WHERE e.name = $1 AND a.outcome = $2`,
        [name, outcome],
      )
    )[0]?.n,
  );

/**
 * True once every event is positioned, every endpoint has fanned out through the last one, and
 * none of their rows is still to send: what each got is then final (and compared to its filter).
 */
async function allDelivered(): Promise<boolean> {
  const [state] = await bed.database.query<{ unpositioned: string; behind: string; open: string }>(
    `SELECT
       (SELECT count(*) FROM feed_events WHERE position IS NULL) AS unpositioned,
       (SELECT count(*) FROM feed_endpoints WHERE name = ANY($1)
          AND fanned_through < (SELECT coalesce(max(position), 0) FROM feed_events)) AS behind,
       (SELECT count(*) FROM feed_endpoint_events x JOIN feed_endpoints e ON e.id = x.endpoint_id
          WHERE e.name = ANY($1) AND x.state <> 'sent') AS open`,
    [NAMES],
  );
  return Number(state?.unpositioned) + Number(state?.behind) + Number(state?.open) === 0;
}

let nextRecord = Date.now() * 100;
/** A direct-credit batch of `count` records (new TransactionIds), as the platform sends it. */
function directCredits(count: number): { body: string; keys: string[] } {
  const records = Array.from({ length: count }, () => {
    nextRecord += 1;
    return directCreditRecord(
      nextRecord,
      12_345 + (nextRecord % 1000),
      '2026-11-29T10:00:00',
      directCreditBatchId(nextRecord),
      {},
    );
  });
  return {
    body: JSON.stringify(directCreditBatch(records)),
    keys: records.map((r) => `InboundDirectCredit/${String(r.TransactionId)}`),
  };
}

async function startSandboxAndReceiver(): Promise<{
  sandbox: TestSandbox;
  receiver: TestReceiver;
}> {
  const sandbox = await startTestSandbox();
  const receiver = await startReceiver(bed.database.db, `${sandbox.url}${PUBLIC_KEY_PATH}`, [
    SUBSCRIPTION_SECRET,
  ]);
  running.push({ stop: receiver.close });
  await receiver.keys.start();
  return { sandbox, receiver };
}

async function startHttpConsumer() {
  const secret = newWebhookSecret().text;
  const consumer = await startConsumer({ secret });
  running.push({ stop: consumer.close });
  return { consumer, secret };
}

describe('the feed as a delivery platform, end to end', () => {
  it('when simulate, quarantined and direct-credit deliveries reach the receiver while the ops consumer is down and NATS is killed and restarted, then each endpoint gets exactly what its filter selects, in order per key; a rotated secret verifies alone; a replay resends with the same ids; the failures are in the attempt log', async () => {
    const started = Date.now();
    const { sandbox, receiver } = await startSandboxAndReceiver();
    const send = (eventName: string, body: string) =>
      deliverSigned(receiver.url, sandbox, eventName, body);

    // The endpoints, through the operator's command, on an empty feed (they start at 0).
    const ledger = await startHttpConsumer();
    const ops = await startHttpConsumer();
    // The queue takes every routing key: what it holds is what the endpoint chose to publish.
    const { exchange, queue } = await rabbit.topology('#');
    const added = [
      ['ledger', '--url', ledger.consumer.url, '--secret', ledger.secret],
      ['ops', '--url', ops.consumer.url, '--secret', ops.secret],
      ['bus-nats', '--nats', nats.url, '--subject', 'e2e.feed', '--stream', STREAM],
      ['bus-rabbit', '--rabbitmq', RABBITMQ_URL, '--exchange', exchange],
    ] as const;
    for (const [name, ...target] of added) {
      const answer = await feed(
        'endpoints',
        'add',
        name,
        ...target,
        '--types',
        FILTERS[name].join(','),
        '--timeout-ms',
        '2000',
      );
      expect(answer.code, answer.err).toBe(0);
    }
    const instance = startFeedInstance({ databaseUrl: bed.database.url });
    running.unshift(instance);

    // One run of simulate, paced (about 4 s), with forgeries, malformed bodies and redeliveries;
    // the faults start once it is under way.
    let attempts = 0;
    let underWay!: () => void;
    const midStream = new Promise<void>((resolve) => (underWay = resolve));
    const simulation = simulate(sandbox.keys, {
      count: 40,
      duplicateRatio: 0.2,
      badSignatureRatio: 0.1,
      malformedRatio: 0.1,
      seed: 26,
      url: receiver.url,
      secret: SUBSCRIPTION_SECRET,
      rate: 10,
      concurrency: 2,
      retryDelayMs: 20,
      timeoutMs: 5000,
      onAttempt: () => {
        if (++attempts === 10) underWay();
      },
    });
    await midStream;

    // Faults: ops's consumer goes away, the NATS server is killed.
    await ops.consumer.down();
    await nats.kill();
    const downAt = Date.now();
    // Meanwhile: a quarantined delivery (signed, a body cut short), a payment and its conflict
    // (two events of one key), a direct-credit batch.
    expect(await send('NPPReceivePayment', '{"TransactionId":"E2E-CUT-SHORT",')).toBe(400);
    const payment = nppPayment();
    expect(await send('NPPReceivePayment', JSON.stringify(payment))).toBe(200);
    expect(await send('NPPReceivePayment', JSON.stringify({ ...payment, Amount: 77 }))).toBe(200);
    const beforeRotation = directCredits(2);
    expect(await send('InboundDirectCredit', beforeRotation.body)).toBe(200);
    // A batch's events as ledger's consumer verified them (from `from` on), each its first time.
    const ledgerGot = (batch: { keys: string[] }, from = 0) =>
      ledger.consumer.received
        .slice(from)
        .filter((e, i, all) => all.findIndex((o) => o.webhookId === e.webhookId) === i)
        .filter((e) => batch.keys.includes(e.key));
    await eventually(
      async () =>
        (await attemptCount('ops', 'failed')) >= 2 &&
        (await attemptCount('bus-nats', 'failed')) >= 1 &&
        ledgerGot(beforeRotation).length === beforeRotation.keys.length,
      15_000,
    );

    // Rotation while they are down: ledger is signed with both secrets; its consumer moves over
    // to the new one alone.
    const signedOnceBefore = ledger.consumer.received.length;
    const rotated = await feed('endpoints', 'rotate-secret', 'ledger');
    expect(rotated.code, rotated.err).toBe(0);
    const newSecret = /(whsec_\S+)/.exec(rotated.out)?.[1] ?? '';
    expect(newSecret).not.toBe('');
    await instance.relays.refresh();
    ledger.consumer.verifyWith([newSecret]);
    const movedOverAt = ledger.consumer.received.length;
    const afterRotation = directCredits(3);
    expect(await send('InboundDirectCredit', afterRotation.body)).toBe(200);

    // Down for a while (at least 2 s), then back.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 2000 - (Date.now() - downAt))));
    await nats.restart();
    await ops.consumer.up();

    const summary = await simulation;
    expect(summary).toMatchObject({ lost: 0, forgedAccepted: 0, unexpected: [] });
    expect(summary.answers[400]).toBeGreaterThan(0); // malformed: quarantined

    // The old secret retired: signed with the new one alone from now on.
    const retired = await feed('endpoints', 'retire-secret', 'ledger');
    expect(retired.code, retired.err).toBe(0);
    await instance.relays.refresh();
    const afterRetirement = directCredits(2);
    expect(await send('InboundDirectCredit', afterRetirement.body)).toBe(200);

    await eventually(allDelivered, 40_000, 100);

    // HTTP endpoints: exactly the selected events, each at least once, in order per key.
    const httpArrivals = (c: typeof ledger.consumer) =>
      c.accepted().map((e) => ({ id: e.webhookId, position: e.position, key: e.key }));
    for (const [name, { consumer }] of [
      ['ledger', ledger],
      ['ops', ops],
    ] as const) {
      const arrivals = httpArrivals(consumer);
      expect(distinctIds(arrivals), name).toEqual(await expectedIds(name));
      expect(outOfOrder(arrivals), name).toEqual([]);
    }
    expect(ops.consumer.unverified()).toBe(0);

    // NATS: the stream (read after the restart, from its store) holds exactly the selected ids.
    const nc = await connect({ servers: nats.url });
    running.push({ stop: () => nc.close() });
    const streamed = (await readStream(nc, STREAM)).map((m) =>
      arrivalOf(String(m.headers['Nats-Msg-Id']), m.body),
    );
    expect(distinctIds(streamed)).toEqual(await expectedIds('bus-nats'));
    expect(outOfOrder(streamed)).toEqual([]);
    // The order was a promise to keep: one key had two events (the payment and its conflict).
    const keys = streamed.map((a) => a.key);
    expect(keys.filter((k) => k === `NPPReceivePayment/${payment.TransactionId}`)).toHaveLength(2);

    // RabbitMQ: the queue bound to the endpoint's exchange holds exactly the selected ids.
    const queued = (await rabbit.drain(queue)).map((m) =>
      arrivalOf(String(m.properties.messageId), m.content.toString('utf8')),
    );
    expect(distinctIds(queued)).toEqual(await expectedIds('bus-rabbit'));
    expect(outOfOrder(queued)).toEqual([]);

    // Rotation: one signature before it; two after it, verified by the consumer holding the new
    // secret alone; one again after the old is retired, still verified by the new one.
    const signedBefore = ledger.consumer.received.slice(0, signedOnceBefore);
    expect(new Set(signedBefore.map((e) => e.signatures))).toEqual(new Set([1]));
    const signatures = (batch: { keys: string[] }) =>
      ledgerGot(batch, movedOverAt).map((e) => e.signatures);
    expect(signatures(afterRotation)).toEqual(afterRotation.keys.map(() => 2));
    expect(signatures(afterRetirement)).toEqual(afterRetirement.keys.map(() => 1));

    // Replay: ledger's first half again, with the same ids, and nothing else.
    const ledgerEvents = (await positionedEvents()).filter((e) =>
      selectsType(FILTERS.ledger, e.type),
    );
    const to = ledgerEvents[Math.floor(ledgerEvents.length / 2)]?.position ?? 0;
    const replayed = ledgerEvents
      .filter((e) => e.position <= to)
      .map((e) => e.id)
      .sort();
    const acceptedBefore = ledger.consumer.accepted().length;
    const opsBefore = ops.consumer.received.length;
    const replay = await feed('replay', '--endpoint', 'ledger', '--from', '1', '--to', String(to));
    expect(replay.code, replay.err).toBe(0);
    expect(replay.out).toContain(`replayed ${replayed.length} event(s) to endpoint ledger`);
    const again = () => ledger.consumer.accepted().slice(acceptedBefore);
    await eventually(() => new Set(again().map((e) => e.webhookId)).size === replayed.length);
    await eventually(allDelivered);
    expect(distinctIds(httpArrivals(ledger.consumer).slice(acceptedBefore))).toEqual(replayed);
    expect(outOfOrder(httpArrivals(ledger.consumer).slice(acceptedBefore))).toEqual([]);
    expect(ops.consumer.received.length).toBe(opsBefore);

    // The attempt log: ops's failures of the down period, as `feed attempts` prints them.
    const failed = await feed('attempts', '--endpoint', 'ops', '--failed', '-n', '1000');
    expect(failed.code, failed.err).toBe(0);
    const lines = failed.out.split('\n').filter((line) => line.startsWith('evt_'));
    expect(lines).toHaveLength(Math.min(1000, await attemptCount('ops', 'failed')));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line).toMatch(/ failed .*error: /);
    // Refused while it was down (one in flight when it went may have been cut instead).
    expect(lines.filter((line) => line.includes('ECONNREFUSED')).length).toBeGreaterThan(0);
    expect(await attemptCount('bus-nats', 'failed')).toBeGreaterThan(0);

    expect(Date.now() - started).toBeLessThan(90_000);
  }, 90_000);
});
