import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  endpointStatsSql,
  readEndpointStats,
} from '../../../src/feed/endpoint-relay/endpoint-stats.ts';
import { feedStatsSql, readFeedStats } from '../../../src/feed/feed-metrics.ts';
import { createDatabase, type Db } from '../../../src/lib/database/database.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * The feed's gauges are read every few seconds by every instance: their cost must follow the
 * backlog, never the events kept. On a seeded table of 300,000 events, each with its row for the
 * `configured` endpoint and for a second endpoint (600,000 delivery rows), the plan of every part
 * of the statement reads an index (no sequential scan of feed_events or feed_endpoint_events),
 * with relays (a small backlog, a few dead letters per endpoint) and without one (every event
 * pending for ever).
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
  // Each endpoint's rows: the configured one's as the relay left them above, the second's with
  // its own small backlog (the newest 500) and dead letters (every 200th of those).
  await database.query(
    `INSERT INTO feed_endpoints (name, kind, target, types, fanned_through)
     VALUES ('second', 'http', 'https://second.example/hooks', '{*}', $1)`,
    [EVENTS],
  );
  await database.query(`UPDATE feed_endpoints SET fanned_through = $1 WHERE name = 'configured'`, [
    EVENTS,
  ]);
  await database.query(
    `INSERT INTO feed_endpoint_events (endpoint_id, position, event_id, type, event_name,
       business_key, state)
     SELECT p.id, e.position, e.id, e.type, e.event_name, e.business_key,
       CASE WHEN p.name = 'configured' THEN e.relay_state
         WHEN e.position <= $1 - 500 THEN 'sent' WHEN e.position % 200 = 0 THEN 'dead'
         ELSE 'pending' END
     FROM feed_events e CROSS JOIN feed_endpoints p WHERE e.position IS NOT NULL`,
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

async function scansOf(sql: string): Promise<PlanNode[]> {
  const [row] = await database.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (FORMAT JSON) ${sql}`,
  );
  const nodes: PlanNode[] = [];
  const walk = (node: PlanNode) => {
    const relation = node['Relation Name'];
    if (relation === 'feed_events' || relation === 'feed_endpoint_events') nodes.push(node);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(row!['QUERY PLAN'][0].Plan);
  return nodes;
}

describe('feed gauges on a large feed_events', () => {
  it('when a relay runs, then every count reads a partial index and the numbers are right', async () => {
    for (const text of [feedStatsSql({ relay: false }), endpointStatsSql({ configured: true })]) {
      const scans = await scansOf(text);
      expect(scans.length).toBeGreaterThan(0);
      for (const scan of scans) {
        expect(scan['Node Type'], JSON.stringify(scan)).not.toBe('Seq Scan');
      }
    }
    expect(await readFeedStats(db, { relay: false })).toMatchObject({
      unassigned: 20,
      lastPosition: String(EVENTS),
    });
    expect(await readEndpointStats(db, { configured: true })).toEqual([
      expect.objectContaining({ name: 'configured', dead: 10, pending: 990, lagEvents: 990 }),
      expect.objectContaining({ name: 'second', dead: 3, pending: 497, lagEvents: 497 }),
    ]);
    // A cursor behind the last position counts the events past it, whatever the filter.
    await database.query(`UPDATE feed_endpoints SET fanned_through = $1 WHERE name = 'second'`, [
      EVENTS - 100,
    ]);
    // Without FEED_HTTP_URL here, `configured` is not reported.
    expect(await readEndpointStats(db, { configured: false })).toEqual([
      expect.objectContaining({ name: 'second', pending: 497, lagEvents: 597 }),
    ]);
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
