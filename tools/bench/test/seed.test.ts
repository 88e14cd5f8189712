import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCleanup } from '../core/cleanup.ts';
import { DEFAULT_ADMIN_DATABASE_URL } from '../core/options.ts';
import { createBenchDatabase, databaseUrl, dropBenchDatabase } from '../core/postgres.ts';
import { launchServer } from '../core/servers.ts';
import { readTables } from '../stored/catalog.ts';
import { seedDatabase, SEED_FIRST_INDEX, type SeedReport } from '../stored/seed.ts';
import { FIRST_WEBHOOK_ID } from '../core/deliveries.ts';

/**
 * The seeding of `--stored`, for real: the receiver (src/cli/main.ts serve under tsx, no build needed)
 * stores a template of 120 deliveries in a fresh database on the machine's Postgres
 * (BENCH_DATABASE_URL or the harness's default), and SQL multiplies it to 1,000, the last copy
 * partial. Then the database is checked as the bench relies on it.
 */

const PROJECT_DIR = fileURLToPath(new URL('../../..', import.meta.url));
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? DEFAULT_ADMIN_DATABASE_URL;
const DELIVERIES = 1_000;
const TEMPLATE = 120;
const FIRST_ID = BigInt(FIRST_WEBHOOK_ID + SEED_FIRST_INDEX);

const cleanup = createCleanup((line) => console.error(line));
const logDir = mkdtempSync(join(tmpdir(), 'bench-seed-test-'));
let database: string;
let client: pg.Client;
let report: SeedReport;

const one = async <T>(sql: string): Promise<T> => {
  const result = await client.query(sql);
  return result.rows[0] as T;
};

beforeAll(async () => {
  database = await createBenchDatabase(ADMIN_URL, `seedtest_${randomBytes(2).toString('hex')}`);
  cleanup.add(`drop ${database}`, () => dropBenchDatabase(ADMIN_URL, database));
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const secret = `Basic ${randomBytes(12).toString('base64')}`;
  report = await seedDatabase({
    adminUrl: ADMIN_URL,
    database,
    deliveries: DELIVERIES,
    templateDeliveries: TEMPLATE,
    signing: {
      privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      secret,
    },
    progress: () => {},
    startReceiver: async (name) => {
      const server = await launchServer('receiver', {
        projectDir: PROJECT_DIR,
        logDir,
        adminUrl: ADMIN_URL,
        poolMax: 4,
        runtime: { nodeArgs: ['--import', 'tsx'], env: {} },
        publicKey,
        secret,
        cleanup,
        database: name,
        receiverScript: 'src/cli/main.ts',
      });
      await server.store?.probe.close();
      return { url: server.process.url, pid: server.process.pid, stop: server.process.stop };
    },
  });
  client = new pg.Client({ connectionString: databaseUrl(ADMIN_URL, database) });
  await client.connect();
}, 120_000);

afterAll(async () => {
  await client?.end();
  await cleanup.run();
  rmSync(logDir, { recursive: true, force: true });
});

describe('seedDatabase', () => {
  it('when 1,000 deliveries are asked for from a template of 120, then exactly 1,000 are stored, with a payment and a feed event each', async () => {
    expect(report.templateDeliveries).toBe(TEMPLATE);
    expect(report.tables).toEqual(
      expect.arrayContaining([
        { table: 'webhook_deliveries', rows: DELIVERIES },
        { table: 'npp_payments', rows: DELIVERIES },
        { table: 'feed_events', rows: DELIVERIES },
      ]),
    );
    const ids = await one<{ n: string; min: string; max: string }>(
      'SELECT count(*) AS n, min(webhook_id)::text AS min, max(webhook_id)::text AS max FROM webhook_deliveries',
    );
    // Consecutive Webhookids from the seed's first: no gap, nothing outside the range.
    expect(ids).toEqual({
      n: String(DELIVERIES),
      min: String(FIRST_ID),
      max: String(FIRST_ID + BigInt(DELIVERIES - 1)),
    });
  });

  it('when the copies are made, then every key the receiver deduplicates or looks up by is distinct', async () => {
    const distinct = await one<Record<string, string>>(`
      SELECT (SELECT count(DISTINCT webhook_id) FROM webhook_deliveries) AS webhook_ids,
             (SELECT count(DISTINCT body_sha256) FROM webhook_deliveries) AS bodies,
             (SELECT count(DISTINCT transaction_id) FROM npp_payments) AS transactions,
             (SELECT count(DISTINCT business_key) FROM feed_events) AS business_keys,
             (SELECT count(DISTINCT id) FROM feed_events) AS event_ids,
             (SELECT count(DISTINCT position) FROM feed_events) AS positions`);
    expect(Object.values(distinct)).toEqual(Array(6).fill(String(DELIVERIES)));
    const sha = await one<{ bad: string }>(
      "SELECT count(*) AS bad FROM webhook_deliveries WHERE body_sha256 !~ '^[0-9a-f]{64}$'",
    );
    expect(sha.bad).toBe('0');
  });

  it('when the copies are made, then every unique index of every table holds no value twice', async () => {
    for (const table of await readTables(client)) {
      for (const index of table.uniqueIndexes.filter((i) => !i.hasExpressions)) {
        const columns = index.columns.map((c) => `"${c}"`).join(', ');
        const counts = await one<{ rows: string; keys: string }>(
          `SELECT count(*) AS rows, count(DISTINCT (${columns})) AS keys FROM "${table.name}"`,
        );
        expect(counts.keys, `${index.name}`).toBe(counts.rows);
      }
    }
  });

  it('when the copies are made, then each payment and feed event still belongs to its own delivery', async () => {
    const joined = await one<{ payments: string; events: string }>(`
      SELECT (SELECT count(*) FROM npp_payments p JOIN webhook_deliveries d USING (webhook_id)
               WHERE d.event_name = 'NPPReceivePayment' AND d.modelled) AS payments,
             (SELECT count(*) FROM feed_events e
                JOIN npp_payments p ON p.transaction_id = e.business_key AND p.webhook_id = e.webhook_id
               WHERE e.type = 'payment.received' AND e.position IS NOT NULL) AS events`);
    expect(joined).toEqual({ payments: String(DELIVERIES), events: String(DELIVERIES) });
    expect(report.references).toContainEqual({
      table: 'feed_events',
      column: 'business_key',
      key: { table: 'npp_payments', column: 'transaction_id' },
    });
  });

  it('when the copies are made, then the feed continues after them and they span weeks, oldest first', async () => {
    const feed = await one<{ next_id: string; max_id: string; max_position: string }>(`
      SELECT nextval(pg_get_serial_sequence('feed_events', 'id'))::text AS next_id,
             max(id)::text AS max_id, max(position)::text AS max_position FROM feed_events`);
    expect(BigInt(feed.next_id)).toBeGreaterThan(BigInt(feed.max_id));
    expect(feed.max_position).toBe(String(DELIVERIES));
    // Copy k's deliveries all arrived before copy k + 1's.
    const spread = await one<{ days: number; out_of_order: string }>(`
      WITH copies AS (
        SELECT (webhook_id - ${FIRST_ID}) / ${TEMPLATE} AS k, min(received_at) AS first,
               max(received_at) AS last FROM webhook_deliveries GROUP BY 1)
      SELECT extract(epoch FROM max(last) - min(first)) / 86400 AS days,
             (SELECT count(*) FROM copies a JOIN copies b ON b.k = a.k + 1
               WHERE b.first <= a.last) AS out_of_order FROM copies`);
    expect(Number(spread.days)).toBeGreaterThan(20);
    expect(spread.out_of_order).toBe('0');
  });

  it('when tables hold rows of no delivery, then they are left as the receiver wrote them', () => {
    expect(report.untouched).toContainEqual({ table: 'feed_relay_control', rows: 1 });
  });
});
