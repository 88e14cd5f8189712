import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runFeedCommand } from '../../support/command-line.ts';
import { sendDelivery } from '../../support/deliveries.ts';
import { emptyFeed } from '../../support/feed-endpoints.ts';
import {
  eventually,
  newWebhookSecret,
  startConsumer,
  type ReceivedEvent,
} from '../../support/feed-consumer.ts';
import { startFeedInstance, type FeedInstance } from '../../support/feed-relay-harness.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * `feed start-after`: marking a history sent without relaying it never swallows an event the
 * relay has been trying to deliver, or one held behind a dead letter, unless forced; it always
 * says what it would skip, by type. It works on one endpoint (default `configured`, the one
 * FEED_HTTP_URL declares): its delivery rows, and its fan-out cursor for the events it has no
 * row for yet.
 */

const bed = useTestbed();
let built: TestApp;
const running: { stop(): Promise<void> }[] = [];

beforeEach(async () => {
  built = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
  await emptyFeed(bed.database);
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

const send = (body: unknown) =>
  sendDelivery(built.app, {
    body: JSON.stringify(body),
    event: 'NPPReceivePayment',
    signWith: bed.signer.privateKey,
  });

async function consumerAndRelay(answer: (event: ReceivedEvent) => number, maxAgeMs?: number) {
  const secret = newWebhookSecret();
  const consumer = await startConsumer({ secret: secret.text, answer });
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

/** Each event's state at `configured` (pending with no attempt while it has no row there yet). */
const relayStates = () =>
  bed.database.query<{ id: string; type: string; relay_state: string; attempts: number }>(
    `SELECT e.id::text, e.type, coalesce(r.state, 'pending') AS relay_state,
       coalesce(r.attempts, 0) AS attempts
     FROM feed_events e
     LEFT JOIN feed_endpoint_events r ON r.event_id = e.id
       AND r.endpoint_id = (SELECT id FROM feed_endpoints WHERE name = 'configured')
     ORDER BY e.position`,
  );

async function feed(instance: Pick<FeedInstance, 'db'>, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runFeedCommand(
    instance.db,
    args,
    (line) => out.push(line),
    (line) => err.push(line),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('feed start-after', () => {
  it('when the relay is running and has been retrying the events, then start-after now is refused and marks none of them sent; they reach the consumer once it is back', async () => {
    let up = false;
    const { consumer, instance } = await consumerAndRelay(() => (up ? 204 : 503));
    for (let i = 0; i < 3; i += 1) await send(nppPayment()).expect(200);
    await send({ ...nppPayment(), Amount: 'not money' }).expect(400); // quarantine.opened
    await eventually(async () => {
      const states = await relayStates();
      return states.length === 4 && states.every((e) => e.attempts > 0);
    });

    const refused = await feed(instance, 'start-after', 'now');
    const markedSent = (await relayStates()).filter((e) => e.relay_state === 'sent').length;
    // Before the guard: exit 0 and 4 of 4 marked sent (the consumer never got them).
    expect({ code: refused.code, markedSent }).toEqual({ code: 1, markedSent: 0 });
    expect(refused.err).toMatch(/^refused, nothing marked: endpoint configured is not paused/);
    expect(refused.err).toContain('4 event(s) in the range have been attempted');
    expect(refused.out).toMatch(/^up to position 4: 4 pending event\(s\) would be marked sent/);
    expect(refused.out).toMatch(/^ {2}payment\.received +3 {2}\(3 attempted\)$/m);
    expect(refused.out).toMatch(/^ {2}quarantine\.opened +1 {2}\(1 attempted\)$/m);
    expect(refused.out).toMatch(/^endpoint configured: running$/m);

    up = true;
    await eventually(() => consumer.accepted().length === 4);
    expect(new Set(consumer.accepted().map((e) => e.type))).toEqual(
      new Set(['payment.received', 'quarantine.opened']),
    );
  }, 30_000);

  it('when the relay is paused and nothing in the range was attempted, then it proceeds and says what it skipped, by type; --dry-run first marks nothing', async () => {
    const { consumer, instance } = await consumerAndRelay(() => 204);
    expect((await feed(instance, 'pause', 'turning on')).code).toBe(0);
    await send(nppPayment()).expect(200);
    await send(nppPayment()).expect(200);
    await send({ ...nppPayment(), Amount: 'not money' }).expect(400);
    await eventually(
      async () =>
        (await bed.database.query('SELECT 1 FROM feed_events WHERE position IS NOT NULL'))
          .length === 3,
    );

    const dry = await feed(instance, 'start-after', 'now', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/^ {2}payment\.received +2$/m);
    expect(dry.out).toMatch(/^ {2}quarantine\.opened +1$/m);
    expect(dry.out).toMatch(/dry run: nothing marked; without --dry-run this would proceed$/);
    expect((await relayStates()).every((e) => e.relay_state === 'pending')).toBe(true);

    const done = await feed(instance, 'start-after', 'now');
    expect(done.code, done.err).toBe(0);
    expect(done.err).toBe('');
    expect(done.out).toMatch(/^ {2}payment\.received +2$/m);
    expect(done.out.split('\n').at(-1)).toBe(
      'marked 3 event(s) up to position 3 as sent without relaying them',
    );
    expect((await feed(instance, 'resume')).code).toBe(0);
    await send(nppPayment()).expect(200);
    await eventually(() => consumer.accepted().length === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(consumer.accepted().map((e) => e.position)).toEqual([4]);
  }, 30_000);

  it('when an event in the range is held behind a dead letter, then start-after is refused (--dry-run says why), and --force marks it while the dead letter stays for redrive', async () => {
    const poison = nppPayment();
    const { instance } = await consumerAndRelay(
      (event) => (event.key === `NPPReceivePayment/${poison.TransactionId}` ? 500 : 204),
      500,
    );
    await send(poison).expect(200);
    await send({ ...poison, Amount: 2 }).expect(200); // conflict.detected, same key: held
    await eventually(async () => (await relayStates()).some((e) => e.relay_state === 'dead'));
    expect((await feed(instance, 'pause')).code).toBe(0);

    const dry = await feed(instance, 'start-after', 'now', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/^ {2}conflict\.detected +1 {2}\(1 behind a dead letter\)$/m);
    expect(dry.out).toContain('1 dead letter(s) in the range are left as they are');
    expect(dry.out).toContain(
      'without --force this would be refused: 1 event(s) in the range are held behind a dead letter',
    );

    const refused = await feed(instance, 'start-after', 'now');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^refused, nothing marked: 1 event\(s\) in the range are held/);
    expect((await relayStates()).map((e) => e.relay_state)).toEqual(['dead', 'pending']);

    const forced = await feed(instance, 'start-after', 'now', '--force');
    expect(forced.code, forced.err).toBe(0);
    expect(forced.err).toMatch(/^--force: proceeding although 1 event\(s\)/);
    expect(forced.out.split('\n').at(-1)).toBe(
      'marked 1 event(s) up to position 2 as sent without relaying them',
    );
    expect((await relayStates()).map((e) => e.relay_state)).toEqual(['dead', 'sent']);

    expect((await feed(instance, 'start-after', 'now', '--bogus')).code).toBe(2);
    expect((await feed(instance, 'start-after')).code).toBe(2);
  }, 30_000);
});
