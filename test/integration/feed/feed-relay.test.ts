import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommandLine, runFeedCommand } from '../../support/command-line.ts';
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

const bed = useTestbed();
let built: TestApp;
const running: { stop(): Promise<void> }[] = [];

beforeEach(() => {
  // Pause is shared state: the testbed un-pauses the endpoints before each test.
  built = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

const send = (body: unknown, event = 'NPPReceivePayment') =>
  sendDelivery(built.app, { body: JSON.stringify(body), event, signWith: bed.signer.privateKey });

async function consumerAndRelay(answer?: (event: ReceivedEvent) => number, maxAgeMs?: number) {
  const secret = newWebhookSecret();
  const consumer = await startConsumer({ secret: secret.text, ...(answer && { answer }) });
  running.push({ stop: consumer.close });
  const instance: FeedInstance = startFeedInstance({
    databaseUrl: bed.database.url,
    url: consumer.url,
    secret: secret.key,
    ...(maxAgeMs !== undefined && { relay: { maxAgeMs, retryBaseMs: 100, retryMaxMs: 200 } }),
  });
  running.unshift(instance);
  return { consumer, instance };
}

/** Every event and where it stands with the `configured` endpoint (FEED_HTTP_URL's). */
const relayStates = () =>
  bed.database.query<{ id: string; relay_state: string; attempts: number; key: string }>(
    `SELECT f.id::text, coalesce(x.state, 'not fanned out') AS relay_state,
       coalesce(x.attempts, 0) AS attempts, f.event_name || '/' || f.business_key AS key
     FROM feed_events f LEFT JOIN feed_endpoint_events x ON x.event_id = f.id
       AND x.endpoint_id = (SELECT id FROM feed_endpoints WHERE name = 'configured')
     ORDER BY f.position`,
  );

/** Per key, the positions in the order they arrived: must never go down. */
function expectOrderPerKey(received: readonly ReceivedEvent[]): void {
  const last = new Map<string, number>();
  for (const event of received) {
    expect(event.position, `order of ${event.key}`).toBeGreaterThanOrEqual(
      last.get(event.key) ?? 0,
    );
    last.set(event.key, event.position);
  }
}

describe('push relay', () => {
  it('when the consumer fails, then refuses connections, then comes back, then every event arrives at least once, verified, in order per key', async () => {
    let phase: 'failing' | 'up' = 'failing';
    const { consumer, instance } = await consumerAndRelay(() => (phase === 'failing' ? 503 : 204));
    // Payments, each re-sent changed (a conflict: a second event of the same key), rejections.
    const payments = Array.from({ length: 5 }, () => nppPayment());
    for (const payment of payments) await send(payment).expect(200);
    for (const payment of payments) await send({ ...payment, Amount: 1 }).expect(200);
    await send(
      [rejectionRecord(), rejectionRecord(), rejectionRecord()],
      'NPPCreditRejections',
    ).expect(200);

    await eventually(() => consumer.received.length >= 5);
    await consumer.down();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    phase = 'up';
    await consumer.up();

    const stored = await relayStates();
    expect(stored).toHaveLength(13);
    await eventually(async () => (await relayStates()).every((e) => e.relay_state === 'sent'));
    const accepted = new Set(consumer.accepted().map((e) => e.webhookId));
    expect([...accepted].sort()).toEqual(stored.map((e) => `evt_${e.id}`).sort());
    expect(consumer.unverified()).toBe(0);
    expectOrderPerKey(consumer.received);
    expect((await relayStates()).some((e) => e.attempts > 1)).toBe(true);
    // Failures the consumer never saw: the refused connections while it was down.
    const failed = (await instance.metrics.attempts.get()).values.find(
      (v) => v.labels.result === 'failed',
    )?.value;
    const answered503 = consumer.received.filter((e) => e.status === 503).length;
    expect(answered503).toBeGreaterThan(0);
    expect(failed).toBeGreaterThan(answered503);
  }, 60_000);

  it('when an event keeps failing past its age, then it is dead-lettered, holds back its key, and the redrive command sends it', async () => {
    const poison = nppPayment();
    let poisoned = true;
    const { consumer, instance } = await consumerAndRelay(
      (event) =>
        poisoned && event.key === `NPPReceivePayment/${poison.TransactionId}` ? 500 : 200,
      1000,
    );
    await send(poison).expect(200);
    await send({ ...poison, Amount: 2 }).expect(200); // a later event of the same key
    const other = nppPayment();
    await send(other).expect(200);

    await eventually(async () => (await relayStates()).some((e) => e.relay_state === 'dead'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const states = await relayStates();
    expect(states.map((e) => e.relay_state)).toEqual(['dead', 'pending', 'sent']);
    // The conflict of the dead key was never offered: order per key holds.
    const key = `NPPReceivePayment/${poison.TransactionId}`;
    expect(
      consumer.received.filter((e) => e.key === key).every((e) => e.type === 'payment.received'),
    ).toBe(true);
    await instance.metrics.refresh(instance.db);
    const text = await instance.registry.metrics();
    expect(text).toMatch(/^feed_relay_dead_letters\{endpoint="configured"\} 1$/m);
    expect(text).toMatch(/^feed_relay_dead_lettered_total\{endpoint="configured"\} 1$/m);

    const env = { DATABASE_URL: bed.database.url, LOG_LEVEL: 'silent' };
    const run = (...args: string[]) => runCommandLine(['feed', ...args], env);
    const listed = await run('dead-letters');
    const deadId = states[0]?.id ?? '';
    expect(listed.stdout).toContain(`${deadId}\tposition 1\tpayment.received`);
    const status = await run('status');
    expect(status.stdout).toMatch(/dead letters:\s+1/);
    expect(status.stdout).toMatch(/blocked by a dead letter of their key: 1/);

    poisoned = false;
    const redriven = await run('redrive', deadId);
    expect(redriven.stdout).toContain(`re-driven event ${deadId}`);
    await eventually(async () => (await relayStates()).every((e) => e.relay_state === 'sent'));
    expectOrderPerKey(consumer.received);
    const ofKey = consumer
      .accepted()
      .filter((e) => e.key === key)
      .map((e) => e.type);
    expect(ofKey).toEqual(['payment.received', 'conflict.detected']);
  }, 60_000);

  it('when the consumer answers too late, then the POST counts as failed and the event is sent again (at least once, same webhook-id)', async () => {
    const secret = newWebhookSecret();
    let first = true;
    const consumer = await startConsumer({
      secret: secret.text,
      delayMs: () => (first ? ((first = false), 5000) : 0),
    });
    running.push({ stop: consumer.close });
    const instance = startFeedInstance({
      databaseUrl: bed.database.url,
      url: consumer.url,
      secret: secret.key,
      relay: { timeoutMs: 1000 },
    });
    running.unshift(instance);
    await send(nppPayment()).expect(200);

    await eventually(async () => (await relayStates()).every((e) => e.relay_state === 'sent'));
    const [state] = await relayStates();
    expect(state?.attempts).toBeGreaterThanOrEqual(2);
    // The consumer saw it more than once under one webhook-id: what it deduplicates on.
    const ids = consumer.received.map((e) => e.webhookId);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect(new Set(ids)).toEqual(new Set([`evt_${state?.id}`]));
  }, 30_000);

  it('when the relay is paused, then nothing is sent until it is resumed', async () => {
    const { consumer, instance } = await consumerAndRelay();
    const lines: string[] = [];
    expect(
      await runFeedCommand(
        instance.db,
        ['pause', 'maintenance'],
        (l) => lines.push(l),
        () => {},
      ),
    ).toBe(0);
    await send(nppPayment()).expect(200);
    await eventually(
      async () =>
        (await bed.database.query('SELECT 1 FROM feed_events WHERE position IS NOT NULL'))
          .length === 1,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(consumer.received).toEqual([]);
    await runFeedCommand(
      instance.db,
      ['status'],
      (l) => lines.push(l),
      () => {},
    );
    expect(lines.join('\n')).toContain('paused (maintenance)');

    await runFeedCommand(
      instance.db,
      ['resume'],
      (l) => lines.push(l),
      () => {},
    );
    await eventually(() => consumer.accepted().length === 1);
  }, 30_000);

  it('when the relay is turned on over a history with start-after, then the history is not re-sent and later events are', async () => {
    const { consumer, instance } = await consumerAndRelay();
    await runFeedCommand(
      instance.db,
      ['pause', 'turning on'],
      () => {},
      () => {},
    );
    await send(nppPayment()).expect(200);
    await send(nppPayment()).expect(200);
    await eventually(
      async () =>
        (await bed.database.query('SELECT 1 FROM feed_events WHERE position IS NOT NULL'))
          .length === 2,
    );
    const lines: string[] = [];
    expect(
      await runFeedCommand(
        instance.db,
        ['start-after', 'now'],
        (l) => lines.push(l),
        () => {},
      ),
    ).toBe(0);
    expect(lines.at(-1)).toMatch(/^marked 2 event\(s\) up to position 2/);
    expect(
      await runFeedCommand(
        instance.db,
        ['start-after', 'soon'],
        () => {},
        () => {},
      ),
    ).toBe(2);
    await runFeedCommand(
      instance.db,
      ['resume'],
      () => {},
      () => {},
    );
    await send(nppPayment()).expect(200);
    await eventually(() => consumer.accepted().length === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(consumer.accepted().map((e) => e.position)).toEqual([3]);
  }, 30_000);

  it('when redrive names an event that is not a dead letter, then it says so and exits 1', async () => {
    const { instance } = await consumerAndRelay();
    const errors: string[] = [];
    expect(
      await runFeedCommand(
        instance.db,
        ['redrive', 'evt_999999'],
        () => {},
        (l) => errors.push(l),
      ),
    ).toBe(1);
    expect(errors).toEqual(['event 999999 is not a dead letter']);
    expect(
      await runFeedCommand(
        instance.db,
        ['redrive'],
        () => {},
        () => {},
      ),
    ).toBe(2);
  });
});
