import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../../common/postgres.ts';
import { FIRST_WEBHOOK_ID } from '../deliveries.ts';
import { DEFAULT_ADMIN_DATABASE_URL } from '../options.ts';
import { createBenchDatabase, dropBenchDatabase } from '../store.ts';

/**
 * seed-2m.sql, for real and small: a fresh database on the machine's Postgres (BENCH_DATABASE_URL
 * or the harness's default), migrated as `npm run migrate` does, seeded with 1,000 deliveries by
 * psql, then checked as the receiver relies on it.
 */

const run = promisify(execFile);
const PROJECT_DIR = fileURLToPath(new URL('../../..', import.meta.url));
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? DEFAULT_ADMIN_DATABASE_URL;
const DELIVERIES = 1_000;

let database: string;
let url: string;
let client: pg.Client;

const seed = (deliveries: number) =>
  run('psql', [url, '-q', '-v', `deliveries=${deliveries}`, '-f', 'tools/bench/seed-2m.sql'], {
    cwd: PROJECT_DIR,
  });

const one = async <T>(sql: string): Promise<T> => {
  const result = await client.query(sql);
  return result.rows[0] as T;
};

beforeAll(async () => {
  database = await createBenchDatabase(ADMIN_URL, 'seed_test');
  url = databaseUrl(ADMIN_URL, database);
  await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'migrate'], {
    cwd: PROJECT_DIR,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DATABASE_URL: url, LOG_LEVEL: 'warn' },
  });
  await seed(DELIVERIES);
  client = new pg.Client({ connectionString: url });
  await client.connect();
}, 120_000);

afterAll(async () => {
  await client?.end();
  if (database) await dropBenchDatabase(ADMIN_URL, database);
});

describe('seed-2m.sql', () => {
  it('when 1,000 deliveries are asked for, then exactly 1,000 are stored, with a payment and a feed event each', async () => {
    expect(
      await one(`SELECT (SELECT count(*)::int FROM webhook_deliveries) AS deliveries,
                        (SELECT count(*)::int FROM npp_payments) AS payments,
                        (SELECT count(*)::int FROM feed_events) AS events`),
    ).toEqual({ deliveries: DELIVERIES, payments: DELIVERIES, events: DELIVERIES });
  });

  it("when seeded, then every key the receiver deduplicates or looks up by is distinct and outside the load's range", async () => {
    expect(
      await one(`SELECT count(DISTINCT d.webhook_id)::int AS ids,
                        count(DISTINCT d.body_sha256)::int AS bodies,
                        count(DISTINCT p.transaction_id)::int AS transactions,
                        count(DISTINCT p.end_to_end_id)::int AS end_to_end,
                        min(d.webhook_id)::text AS lowest
                   FROM webhook_deliveries d JOIN npp_payments p USING (webhook_id)`),
    ).toEqual({
      ids: DELIVERIES,
      bodies: DELIVERIES,
      transactions: DELIVERIES,
      end_to_end: DELIVERIES,
      lowest: String(BigInt(FIRST_WEBHOOK_ID) + 1_000_000_000n),
    });
  });

  it('when seeded, then each body is a payment of 500-600 bytes whose typed row and feed event hold its values', async () => {
    expect(
      await one(`SELECT count(*)::int AS matching,
                        min(octet_length(d.raw_body)) >= 500 AND max(octet_length(d.raw_body)) <= 600 AS sized
                   FROM webhook_deliveries d
                   JOIN npp_payments p USING (webhook_id)
                   JOIN feed_events e USING (webhook_id)
                  WHERE delivery_body_json(d.raw_body)->>'TransactionId' = p.transaction_id
                    AND (delivery_body_json(d.raw_body)->>'Amount')::numeric = p.amount
                    AND delivery_body_json(d.raw_body)->>'DateTime' = p.date_time_text
                    AND delivery_body_json(d.raw_body)->>'PaymentDescription' = p.remittance_information
                    AND d.body_sha256 = encode(sha256(d.raw_body), 'hex')
                    AND (d.headers->>'content-length')::int = octet_length(d.raw_body)
                    AND e.business_key = p.transaction_id
                    AND e.created_at = d.received_at`),
    ).toEqual({ matching: DELIVERIES, sized: true });
  });

  it('when seeded, then the feed is numbered without a gap and the next event continues it', async () => {
    expect(
      await one(`SELECT min(position)::int AS first, max(position)::int AS last,
                        count(DISTINCT position)::int AS distinct_positions,
                        bool_and(position = id) AS position_is_id
                   FROM feed_events`),
    ).toEqual({ first: 1, last: DELIVERIES, distinct_positions: DELIVERIES, position_is_id: true });
    expect(
      await one(`SELECT nextval(pg_get_serial_sequence('feed_events', 'id'))::int AS next`),
    ).toEqual({ next: DELIVERIES + 1 });
  });

  it('when seeded, then the deliveries span the four weeks before, oldest first', async () => {
    const span = await one<{ days: number; ordered: boolean; recent: boolean }>(
      `SELECT (extract(epoch FROM max(received_at) - min(received_at)) / 86400)::float8 AS days,
              bool_and(ordered) AS ordered, max(received_at) > now() - interval '1 hour' AS recent
         FROM (SELECT received_at,
                      received_at >= lag(received_at, 1, '-infinity') OVER (ORDER BY webhook_id) AS ordered
                 FROM webhook_deliveries) AS d`,
    );
    expect(span.days).toBeGreaterThan(27.9);
    expect(span.days).toBeLessThanOrEqual(28);
    expect(span).toMatchObject({ ordered: true, recent: true });
  });

  it('when the database already holds deliveries, then the script refuses and changes nothing', async () => {
    await expect(seed(10)).rejects.toThrow(/fills an empty database/);
    expect(await one('SELECT count(*)::int AS n FROM webhook_deliveries')).toEqual({
      n: DELIVERIES,
    });
  });
});
