import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointStatsSql, feedStatsSql, readFeedStats } from '../../../src/feed/feed-stats.ts';
import { createDatabase, type Db } from '../../../src/lib/database/database.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * The feed's gauges are read every few seconds by every instance: their cost must follow the
 * backlog, never the events kept. On a seeded feed of 300,000 events, delivered to two endpoints
 * (600,000 rows of delivery state), the plan of every part of the statements reads an index (no
 * sequential scan of feed_events nor of feed_endpoint_events), with a relay (a small backlog, a
 * few dead letters) and without one.
 */
const EVENTS = 300_000;
let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDatabase({ url: database.url, poolMax: 1 });
  await database.query(
    `INSERT INTO feed_events (position, type, event_name, business_key, webhook_id, relay_state)
     SELECT g, 'payment.received', 'NPPReceivePayment', 'T' || (g % 250000), g, 'sent'
     FROM generate_series(1, $1) AS g`,
    [EVENTS],
  );
  await database.query(
    `INSERT INTO feed_events (type, event_name, business_key, webhook_id)
     SELECT 'payment.received', 'NPPReceivePayment', 'U' || g, $1 + g FROM generate_series(1, 20) AS g`,
    [EVENTS],
  );
  // configured: fanned through the end, the last 1,000 not sent (every 100th dead); second:
  // fanned through 299,000, the last 500 of those pending, disabled.
  await database.query(
    `UPDATE feed_endpoints SET fanned_through = $1, paused = true, paused_reason = 'turning on'
     WHERE name = 'configured'`,
    [EVENTS],
  );
  await database.query(
    `INSERT INTO feed_endpoints (name, kind, target, types, enabled, fanned_through)
     VALUES ('second', 'http', 'https://consumer.test/feed', '{payment.*}', false, $1 - 1000)`,
    [EVENTS],
  );
  await database.query(
    `INSERT INTO feed_endpoint_events (endpoint_id, position, event_id, type, event_name,
       business_key, state)
     SELECT ep.id, e.position, e.id, e.type, e.event_name, e.business_key,
       CASE WHEN ep.name = 'configured' AND e.position > $1 - 1000
              THEN CASE WHEN e.position % 100 = 0 THEN 'dead' ELSE 'pending' END
            WHEN ep.name = 'second' AND e.position > $1 - 1500 THEN 'pending'
            ELSE 'sent' END
     FROM feed_events e JOIN feed_endpoints ep ON e.position <= ep.fanned_through`,
    [EVENTS],
  );
  await database.query('ANALYZE feed_events');
  await database.query('ANALYZE feed_endpoint_events');
}, 180_000);
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

const LARGE = ['feed_events', 'feed_endpoint_events'];

async function scansOf(sql: string): Promise<PlanNode[]> {
  const [row] = await database.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (FORMAT JSON) ${sql}`,
  );
  const nodes: PlanNode[] = [];
  const walk = (node: PlanNode) => {
    if (LARGE.includes(node['Relation Name'] ?? '')) nodes.push(node);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(row!['QUERY PLAN'][0].Plan);
  return nodes;
}

describe('feed gauges on a large feed', () => {
  it('when a relay runs, then every count reads an index and the numbers are right per endpoint', async () => {
    for (const statement of [feedStatsSql(), endpointStatsSql()]) {
      const scans = await scansOf(statement);
      expect(scans.length).toBeGreaterThan(0);
      for (const scan of scans) {
        expect(scan['Node Type'], JSON.stringify(scan)).not.toBe('Seq Scan');
      }
    }
    expect(
      (await scansOf(endpointStatsSql())).some(
        (scan) => scan['Relation Name'] === 'feed_endpoint_events',
      ),
    ).toBe(true);
    const stats = await readFeedStats(db, { relay: true });
    expect(stats).toMatchObject({ unassigned: 20, lastPosition: String(EVENTS) });
    expect(stats.endpoints).toMatchObject([
      {
        name: 'configured',
        enabled: true,
        paused: true,
        pausedReason: 'turning on',
        fannedThrough: String(EVENTS),
        notFannedOut: 0,
        pending: 990,
        dead: 10,
        blocked: 0,
      },
      {
        name: 'second',
        enabled: false,
        paused: false,
        fannedThrough: String(EVENTS - 1000),
        notFannedOut: 1000,
        pending: 500,
        dead: 0,
      },
    ]);
    expect(stats.endpoints[0]!.oldestPendingSeconds).toBeGreaterThanOrEqual(0);
  });

  it('when no relay runs in the process, then the refresh reads no delivery state at all', async () => {
    const scans = await scansOf(feedStatsSql());
    for (const scan of scans) {
      expect(scan['Node Type'], JSON.stringify(scan)).not.toBe('Seq Scan');
      expect(scan['Relation Name']).toBe('feed_events');
    }
    const stats = await readFeedStats(db, { relay: false });
    expect(stats).toEqual({ unassigned: 20, lastPosition: String(EVENTS), endpoints: [] });
  });
});
