import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * Every query the README offers a merchant ("Questions a merchant asks"), taken from the README
 * itself, is planned on a database holding years of payments (120,000 deliveries, a few per
 * cent of them recent): none may read a whole table. A query added to the README without an
 * index fails here.
 */
const DELIVERIES = 120_000;
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  await seed();
}, 180_000);
afterAll(() => database?.drop());

async function seed(): Promise<void> {
  const q = (text: string) => database.query(text, [DELIVERIES]);
  // Deliveries over about three years, one in a hundred stored with a warning.
  await q(`
    INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
      raw_body, payload, content_type, headers, warnings)
    SELECT g, CASE WHEN g <= 70000 THEN 'NPPReceivePayment' WHEN g <= 90000 THEN 'PayToReceivePayment'
              WHEN g <= 110000 THEN 'InboundDirectCredit' ELSE 'InboundDirectCreditRejections' END,
      true, now() - (g % 1100) * interval '1 day' - (g % 1440) * interval '1 minute',
      md5(g::text) || md5((g + 1)::text), '\\x7b7d', '{}', 'application/json', '{}',
      CASE WHEN g % 100 = 0 THEN '[{"path":"x","message":"odd"}]'::jsonb ELSE '[]'::jsonb END
    FROM generate_series(1, $1) AS g`);
  const payment = (table: string, from: number, to: number) =>
    q(`
      INSERT INTO ${table} (transaction_id, webhook_id, amount, date_time_local, date_time_text,
        remitter_name, source_bsb, source_account_number, received_at)
      SELECT 'T' || g, g, (g % 997) + 0.5,
        (now() AT TIME ZONE 'Australia/Sydney') - (g % 1100) * interval '1 day',
        'text', 'Payer ' || (g % 5000), '062-' || lpad((g % 1000)::text, 3, '0'),
        (10000000 + g % 50000)::text, now() - (g % 1100) * interval '1 day'
      FROM generate_series(${from}, ${to}) AS g WHERE $1 > 0`);
  await payment('npp_payments', 1, 70_000);
  await payment('payto_payments', 70_001, 90_000);
  await payment('direct_credits', 90_001, 110_000);
  await q(`
    INSERT INTO direct_credit_batches (webhook_id, total_count, total_amount, record_count, received_at)
    SELECT g, 1, (g % 997) + 0.5, 1, now() - (g % 1100) * interval '1 day'
    FROM generate_series(90001, 110000) AS g WHERE $1 > 0`);
  await q(`
    INSERT INTO credit_rejections (event_name, rejection_id, webhook_id, amount, received_at)
    SELECT 'InboundDirectCreditRejections', 'R' || g, g, 1, now() - (g % 1100) * interval '1 day'
    FROM generate_series(110001, $1) AS g`);
  // Conflicts and quarantined deliveries: many, nearly all resolved or handled.
  await q(`
    INSERT INTO conflicts (table_name, event_name, business_key, first_webhook_id, webhook_id,
      record_index, differences, resolved_at)
    SELECT 'npp_payments', 'NPPReceivePayment', 'T' || g, g, g + 1, 0, '[]',
      CASE WHEN g % 500 = 0 THEN NULL ELSE now() END
    FROM generate_series(1, 20000) AS g WHERE $1 > 0`);
  await q(`
    INSERT INTO quarantined_deliveries (event_name, received_at, body_sha256, raw_body, headers,
      reasons, handled_at, handling)
    SELECT 'NPPReceivePayment', now() - g * interval '1 minute', md5(g::text) || md5(g::text),
      '\\x7b7d', '{}', '[{"path":"Amount","message":"odd"}]',
      CASE WHEN g % 500 = 0 THEN NULL ELSE now() END, CASE WHEN g % 500 = 0 THEN NULL ELSE 'marked' END
    FROM generate_series(1, 20000) AS g WHERE $1 > 0`);
  await database.query('ANALYZE');
}

/** The README's "Questions a merchant asks" block, one statement each (comments dropped). */
function readmeQueries(): string[] {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('Questions a merchant asks');
  const block = /```sql\n([\s\S]*?)```/.exec(readme.slice(start))?.[1] ?? '';
  return block
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n')
    .split(';')
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

async function sequentialScans(statement: string): Promise<string[]> {
  const [row] = await database.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (FORMAT JSON) ${statement}`,
  );
  const found: string[] = [];
  const walk = (node: PlanNode) => {
    if (node['Node Type'] === 'Seq Scan') found.push(node['Relation Name'] ?? '?');
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(row!['QUERY PLAN'][0].Plan);
  return found;
}

describe("the README's merchant queries on a large database", () => {
  const queries = readmeQueries();

  it('when the README is read, then it offers the queries this test plans', () => {
    expect(queries.length).toBeGreaterThanOrEqual(7);
  });

  it.each(queries.map((query) => [query.split('\n')[0], query]))(
    'when a merchant runs "%s", then no table is read whole',
    async (_first, query) => {
      expect(await sequentialScans(query)).toEqual([]);
    },
  );

  it('when the payments of today are asked for, then direct credits are among them', async () => {
    const [today] = queries;
    const rows = await database.query<{ event_name: string }>(today!);
    expect(new Set(rows.map((row) => row.event_name))).toEqual(
      new Set(['NPPReceivePayment', 'PayToReceivePayment', 'InboundDirectCredit']),
    );
  });
});
