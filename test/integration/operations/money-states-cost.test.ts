import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigrator } from '../../../src/lib/database/migrator.ts';
import { moneyStatesSql, readMoneyStates } from '../../../src/operations/attention/money-states.ts';
import {
  createTestDatabase,
  migratedUpToBefore,
  type TestDatabase,
} from '../../support/test-database.ts';

/**
 * Every instance reads the money states at each scrape (at most once per 5 s): their cost must
 * follow what waits, never the rows kept. The rows are written by the previous schema (200,000
 * refunds, 200,000 PayTo receipts, 20,000 quarantined deliveries and conflicts, a handful of each
 * still waiting), measured with EXPLAIN (ANALYZE, BUFFERS), migrated to 2026-11-28T04 (its
 * partial indexes), and measured again: the rows are untouched, the numbers the same, and no part
 * of the statement scans a table.
 */
const MIGRATION = '2026-11-28T04-00-00_money-state-indexes';
const ROWS = 200_000;
const SMALL = 20_000;
/** Shared buffers (8 kB pages) the whole statement may touch once indexed: what waits, not what is kept. */
const BUFFERS_BOUND = 200;

const TABLES = ['refunds', 'payto_unmatched_receipts', 'quarantined_deliveries', 'conflicts'];

let database: TestDatabase;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

interface Measured {
  /** Scans of the four tables: node type and index. */
  scans: { table: string; node: string; index: string | undefined }[];
  buffers: number;
  ms: number;
}

async function measure(): Promise<Measured> {
  const [row] = await database.query<{
    'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }];
  }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${moneyStatesSql()}`);
  const plan = row!['QUERY PLAN'][0];
  const scans: Measured['scans'] = [];
  const walk = (node: PlanNode) => {
    const table = node['Relation Name'];
    if (table && TABLES.includes(table)) {
      scans.push({ table, node: node['Node Type'], index: node['Index Name'] });
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan.Plan);
  return {
    scans,
    buffers: plan.Plan['Shared Hit Blocks'] + plan.Plan['Shared Read Blocks'],
    ms: plan['Execution Time'],
  };
}

async function snapshot(): Promise<string[]> {
  const out: string[] = [];
  for (const [table, key] of [
    ['refunds', 'unique_reference'],
    ['payto_unmatched_receipts', 'transaction_id'],
  ] as const) {
    const [row] = await database.query<{ digest: string }>(
      `SELECT md5(string_agg(to_jsonb(t)::text, ',' ORDER BY ${key})) AS digest FROM ${table} t`,
    );
    out.push(row!.digest);
  }
  return out;
}

let before: Measured;
let beforeRows: string[];
let beforeStates: Awaited<ReturnType<typeof readMoneyStates>>;

beforeAll(async () => {
  database = await createTestDatabase(migratedUpToBefore(MIGRATION));
  // The previous release's rows: refunds (1 in 40,000 unknown, 1 in 40,000 pending, a few
  // failed, the rest succeeded) ...
  await database.query(
    `INSERT INTO refunds (unique_reference, caller_reference, transaction_id, payment_event,
       amount, state, requested_at, completed_at, attempts)
     SELECT 'rf' || g, 'c' || g, 'N' || (g / 2), 'NPPReceivePayment', 10 + g % 90,
       CASE WHEN g % 40000 = 0 THEN 'unknown' WHEN g % 40000 = 1 THEN 'pending'
            WHEN g % 50 = 0 THEN 'failed' ELSE 'succeeded' END,
       now() - interval '400 days' + g * interval '2 minutes',
       CASE WHEN g % 40000 IN (0, 1) THEN NULL ELSE now() - interval '400 days' + g * interval '2 minutes' END,
       1
     FROM generate_series(1, $1) AS g`,
    [ROWS],
  );
  // ... PayTo receipts no webhook brought, all but 1 in 20,000 since resolved ...
  await database.query(
    `INSERT INTO payto_unmatched_receipts (transaction_id, report_day, amount, report_row,
       first_seen_at, last_seen_at, resolved_at)
     SELECT 'P' || g, current_date - 400 + g / 500, 12.5, '{"Amount":"12.50"}',
       now() - interval '400 days' + g * interval '2 minutes', now() - interval '400 days' + g * interval '2 minutes',
       CASE WHEN g % 20000 = 0 THEN NULL ELSE now() - interval '399 days' + g * interval '2 minutes' END
     FROM generate_series(1, $1) AS g`,
    [ROWS],
  );
  // ... and quarantined deliveries and conflicts, 1 in 1,000 still open.
  await database.query(
    `INSERT INTO quarantined_deliveries (event_name, webhook_id_header, received_at, body_sha256,
       raw_body, headers, reasons, handled_at, handling)
     SELECT 'NPPReceivePayment', g::text, now() - interval '200 days' + g * interval '10 minutes',
       encode(sha256(('q' || g)::bytea), 'hex'), '\\x7b7d', '{}', '[]',
       CASE WHEN g % 1000 = 0 THEN NULL ELSE now() END, CASE WHEN g % 1000 = 0 THEN NULL ELSE 'marked' END
     FROM generate_series(1, $1) AS g`,
    [SMALL],
  );
  await database.query(
    `INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
       raw_body, payload, content_type, headers)
     SELECT g, 'NPPReceivePayment', true, now() - interval '200 days', encode(sha256(g::text::bytea), 'hex'),
       '\\x7b7d', '{}'::jsonb, 'application/json', '{}'
     FROM generate_series(1, $1 * 2) AS g`,
    [SMALL],
  );
  await database.query(
    `INSERT INTO conflicts (table_name, event_name, business_key, first_webhook_id, webhook_id,
       record_index, differences, detected_at, resolved_at)
     SELECT 'npp_payments', 'NPPReceivePayment', 'T' || g, 2 * g - 1, 2 * g, 0, '[]',
       now() - interval '200 days' + g * interval '10 minutes', CASE WHEN g % 1000 = 0 THEN NULL ELSE now() END
     FROM generate_series(1, $1) AS g`,
    [SMALL],
  );
  await database.query(`VACUUM ANALYZE ${TABLES.join(', ')}`);
  beforeRows = await snapshot();
  beforeStates = await readMoneyStates(database.db, { timeoutMs: 10_000 });
  before = await measure();

  const { error } = await createMigrator(database.db).migrateToLatest();
  if (error) throw error;
  await database.query(`VACUUM ANALYZE ${TABLES.join(', ')}`);
}, 180_000);

afterAll(() => database?.drop());

describe('the money-state read on a large database', () => {
  it('before 2026-11-28T04, then refunds in doubt are found by reading every refund', () => {
    console.info(`money states before 2026-11-28T04: ${JSON.stringify(before)}`);
    expect(before.scans).toContainEqual(
      expect.objectContaining({ table: 'refunds', node: 'Seq Scan' }),
    );
    expect(before.buffers).toBeGreaterThan(1000);
  });

  it('after it, then every part reads a partial index and the whole statement touches a few pages', async () => {
    const after = await measure();
    console.info(`money states after 2026-11-28T04: ${JSON.stringify(after)}`);
    expect(after.scans).toHaveLength(10); // a count and an oldest for each of 5 kinds
    for (const scan of after.scans) expect(scan.node, JSON.stringify(scan)).not.toBe('Seq Scan');
    expect(after.scans).toContainEqual(expect.objectContaining({ index: 'refunds_in_doubt' }));
    expect(after.scans).toContainEqual(
      expect.objectContaining({ index: 'payto_unmatched_receipts_open_since' }),
    );
    expect(after.buffers).toBeLessThan(BUFFERS_BOUND);
  });

  it('when migrated, then the rows the previous schema wrote are untouched and read the same', async () => {
    expect(await snapshot()).toEqual(beforeRows);
    const states = await readMoneyStates(database.db, { timeoutMs: 10_000 });
    expect(states).toMatchObject({
      quarantine: { open: SMALL / 1000 },
      conflicts: { open: SMALL / 1000 },
      refundsInDoubt: { pending: { open: 5 }, unknown: { open: 5 } },
      paytoUnmatched: { open: ROWS / 20000 },
    });
    // The same numbers as before (ages move on with the clock between the two reads).
    const counts = (s: typeof states) => [
      s.quarantine.open,
      s.conflicts.open,
      s.refundsInDoubt.pending.open,
      s.refundsInDoubt.unknown.open,
      s.paytoUnmatched.open,
    ];
    expect(counts(states)).toEqual(counts(beforeStates));
    expect(states.refundsInDoubt.unknown.oldestAgeSeconds).toBeGreaterThanOrEqual(
      beforeStates.refundsInDoubt.unknown.oldestAgeSeconds,
    );
    expect(states.refundsInDoubt.unknown.oldestAgeSeconds).toBeLessThan(
      beforeStates.refundsInDoubt.unknown.oldestAgeSeconds + 120,
    );
  });
});
