import { afterEach, describe, expect, it } from 'vitest';
import { claimEvents } from '../../../src/feed/endpoint-relay/claims.ts';
import { fanOutAll } from '../../../src/feed/endpoint-relay/fan-out.ts';
import { assignPositions } from '../../../src/feed/assigner.ts';
import {
  eventually,
  feedDatabase,
  newWebhookSecret,
  startConsumer,
} from '../../support/feed-consumer.ts';
import { startFeedInstance } from '../../support/feed-relay-harness.ts';
import { useTestbed } from '../../support/testbed.ts';

const bed = useTestbed();
const running: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

/** Outbox rows written directly: `keys` business keys, `perKey` events each. */
async function insertEvents(keys: number, perKey: number): Promise<void> {
  await bed.database.query(
    `INSERT INTO feed_events (type, event_name, business_key, webhook_id)
     SELECT 'event.unmodelled', 'Test', 'K' || k, k * 100 + n
     FROM generate_series(1, $2::int) n, generate_series(1, $1::int) k ORDER BY n, k`,
    [keys, perKey],
  );
}

const sentBy = async (instance: ReturnType<typeof startFeedInstance>) =>
  (await instance.metrics.attempts.get()).values.find((v) => v.labels.result === 'sent')?.value ??
  0;

describe('several instances', () => {
  it('when two instances relay the same feed and the consumer answers 2xx, then no event is sent twice and both take part', async () => {
    const secret = newWebhookSecret();
    const consumer = await startConsumer({ secret: secret.text });
    running.push({ stop: consumer.close });
    await insertEvents(40, 3);
    const options = { databaseUrl: bed.database.url, url: consumer.url, secret: secret.key };
    const a = startFeedInstance({ ...options, relay: { instance: 'a' } });
    const b = startFeedInstance({ ...options, relay: { instance: 'b' } });
    running.unshift(a, b);

    await eventually(() => consumer.received.length >= 120);
    await new Promise((resolve) => setTimeout(resolve, 500)); // any duplicate would show by now
    const ids = consumer.received.map((e) => e.webhookId);
    expect(ids).toHaveLength(120);
    expect(new Set(ids).size).toBe(120);
    expect(consumer.unverified()).toBe(0);
    // Each instance counts a send once it has committed it, a moment after the consumer got it.
    await eventually(async () => (await sentBy(a)) + (await sentBy(b)) >= 120, 10_000);
    expect(await sentBy(a)).toBeGreaterThan(0);
    expect(await sentBy(b)).toBeGreaterThan(0);
    expect((await sentBy(a)) + (await sentBy(b))).toBe(120);
    // Order per key across the two instances.
    const last = new Map<string, number>();
    for (const event of consumer.received) {
      expect(event.position).toBeGreaterThan(last.get(event.key) ?? 0);
      last.set(event.key, event.position);
    }
  }, 60_000);

  it('when an instance claims events and dies, then another sends them once its lease has run out', async () => {
    await insertEvents(3, 1);
    const feed = feedDatabase(bed.database.url);
    running.push({ stop: () => feed.db.destroy() });
    await assignPositions(feed.db);
    const [configured] = await bed.database.query<{ id: string }>(
      `SELECT id::text FROM feed_endpoints WHERE name = 'configured'`,
    );
    const endpointId = configured?.id ?? '';
    await fanOutAll(feed.db, endpointId);
    const claimed = await claimEvents(feed.db, {
      endpointId,
      instance: 'crashed',
      limit: 10,
      leaseMs: 8000,
    });
    expect(claimed).toHaveLength(3);

    const secret = newWebhookSecret();
    const consumer = await startConsumer({ secret: secret.text });
    running.push({ stop: consumer.close });
    const survivor = startFeedInstance({
      databaseUrl: bed.database.url,
      url: consumer.url,
      secret: secret.key,
    });
    running.unshift(survivor);
    // Well inside the lease (8 s, a margin for a loaded machine): the survivor leaves them be.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(consumer.received).toEqual([]);
    await eventually(() => consumer.received.length === 3, 40_000);
    // The consumer has the POSTs before the relay commits them as sent: wait for that commit.
    const rows = () =>
      bed.database.query<{ attempts: number; state: string }>(
        'SELECT attempts, state FROM feed_endpoint_events',
      );
    await eventually(
      async () => (await rows()).length === 3 && (await rows()).every((r) => r.state === 'sent'),
      10_000,
    );
    expect(await rows()).toEqual(Array(3).fill({ attempts: 2, state: 'sent' }));
    expect(consumer.received).toHaveLength(3);
  }, 60_000);
});
