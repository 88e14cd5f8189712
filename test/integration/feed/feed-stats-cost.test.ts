import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedStatsSql, readFeedStats } from '../../../src/feed/feed-metrics.ts';
import { createDatabase, type Db } from '../../../src/lib/database/database.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * The feed's gauges are read every few seconds by every instance: their cost must follow the
 * backlog, never the events kept. On a seeded table of 300,000 events the plan of every part of
 * the statement reads an index (no sequential scan of feed_events), with a relay (a small
 * backlog, a few dead letters) and without one (every event pending for ever).
 */
const EVENTS = 300_000;
let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDatabase({ url: database.url, poolMax: 1 });
  await database.query(
    `INSERT INTO feed_events (position, type, event_name, business_key, webhook_id, relay_state)
     SELECT g, 'payment.received', 'NPPReceivePayment', 'T' || (g % 250000), g,
       CASE WHEN g <= $1 - 1000 THEN 'sent' WHEN g % 100 = 0 THEN 'dead' ELSE 'pending' END
     FROM generate_series(1, $1) AS g`,
    [EVENTS],
  );
  await database.query(
    `INSERT INTO feed_events (type, event_name, business_key, webhook_id)
     SELECT 'payment.received', 'NPPReceivePayment', 'U' || g, $1 + g FROM generate_series(1, 20) AS g`,
    [EVENTS],
  );
  await database.query('ANALYZE feed_events');
}, 120_000);
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

async function scansOf(sql: string): Promise<PlanNode[]> {
  const [row] = await database.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (FORMAT JSON) ${sql}`,
  );
  const nodes: PlanNode[] = [];
  const walk = (node: PlanNode) => {
    if (node['Relation Name'] === 'feed_events') nodes.push(node);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(row!['QUERY PLAN'][0].Plan);
  return nodes;
}

describe('feed gauges on a large feed_events', () => {
  it('when a relay runs, then every count reads a partial index and the numbers are right', async () => {
    const scans = await scansOf(feedStatsSql({ relay: true }));
    expect(scans.length).toBeGreaterThan(0);
    for (const scan of scans) expect(scan['Node Type'], JSON.stringify(scan)).not.toBe('Seq Scan');
    const stats = await readFeedStats(db, { relay: true });
    expect(stats).toMatchObject({
      unassigned: 20,
      dead: 10,
      pending: 990,
      lastPosition: String(EVENTS),
    });
  });

  it('when no relay is configured (every event pending for ever), then the refresh does not read the pending events at all', async () => {
    await database.query(
      `UPDATE feed_events SET relay_state = 'pending' WHERE relay_state = 'sent'`,
    );
    await database.query('ANALYZE feed_events');
    const scans = await scansOf(feedStatsSql({ relay: false }));
    for (const scan of scans) {
      expect(scan['Node Type'], JSON.stringify(scan)).not.toBe('Seq Scan');
      expect(scan['Index Name']).not.toBe('feed_events_relay_due');
    }
    const stats = await readFeedStats(db, { relay: false });
    expect(stats).toMatchObject({ unassigned: 20, lastPosition: String(EVENTS) });
  });
});
