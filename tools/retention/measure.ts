/**
 * npx tsx tools/retention/measure.ts [--deliveries 200000] [--cost-deliveries 1000000]
 *                                    [--admin-url postgres://postgres@127.0.0.1:5432/postgres]
 *
 * The figures of docs/retention.md, measured once by hand (never part of `npm test`):
 *
 * 1. Bytes per delivery before and after pruning: a fresh database, migrated by `npm run
 *    migrate`, seeded with `--deliveries` NPPReceivePayment deliveries as the store statement
 *    writes them (the benchmark's 500-600 byte bodies, the headers a delivery behind a balancer
 *    keeps, one npp_payments row and one sent feed event each), all past every retention. Sizes
 *    are pg_total_relation_size (heap, TOAST, indexes) of webhook_deliveries, feed_events and
 *    the typed tables, divided by the deliveries; after `npm run prune`, then after VACUUM
 *    (what Postgres can reuse: the files keep their size) and VACUUM FULL (what the rows need).
 * 2. The prune's cost on `--cost-deliveries` deliveries: `npm run prune` with no pause between
 *    batches, once for the raw requests only and once for the feed events only: seconds, and
 *    WAL bytes (pg_current_wal_lsn() before and after: use a cluster nobody else writes to).
 *    Also the time the migration's index builds take on that table.
 *
 * Databases are created under the admin URL and dropped at the end. Progress on stderr; the
 * figures as JSON on stdout.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { paymentBody } from '../common/payment-body.ts';
import { TYPED_TABLES as REGISTERED_TABLES } from '../../src/receiver/index.ts';

const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));
const SEED_BATCH = 5000;
const DAY_MS = 86_400_000;

/** The ledger's tables: the registry's typed tables, the direct-credit batches, conflicts. */
const TYPED_TABLES = [
  ...REGISTERED_TABLES.map((typed) => typed.table),
  'direct_credit_batches',
  'conflicts',
];

const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs a project script (migrate, prune) as an operator would, with this environment. */
function runScript(script: string, env: Record<string, string>, args: string[] = []) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: PROJECT_DIR,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      for (const line of chunk.toString().split('\n')) if (line) log(`  ${script}: ${line}`);
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The headers a delivery keeps (credentials removed) when it came through a balancer. */
function storedHeaders(webhookId: string, body: string): Record<string, string> {
  return {
    host: 'payments-webhooks.example.com.au',
    'x-request-id': randomBytes(16).toString('hex'),
    'x-forwarded-for': '203.0.113.10',
    'x-forwarded-proto': 'https',
    connection: 'close',
    'content-length': String(Buffer.byteLength(body)),
    'content-type': 'application/json; charset=utf-8',
    webhookid: webhookId,
    'verification-signature': randomBytes(256).toString('base64'),
  };
}

/** `count` deliveries received between 190 and 100 days ago, their events sent a minute later. */
async function seed(client: pg.Client, count: number): Promise<void> {
  const now = Date.now();
  for (let first = 0; first < count; first += SEED_BATCH) {
    const rows = [];
    for (let i = first; i < Math.min(count, first + SEED_BATCH); i += 1) {
      const webhookId = String(1_000_000_000_000_000 + i);
      const body = paymentBody(i);
      rows.push({
        position: i + 1,
        webhook_id: webhookId,
        body,
        headers: storedHeaders(webhookId, body),
        received_at: new Date(now - 190 * DAY_MS + (i / count) * 90 * DAY_MS).toISOString(),
        request_id: randomBytes(16).toString('hex'),
      });
    }
    await client.query(
      `WITH src AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(position bigint, webhook_id bigint,
           body text, headers jsonb, received_at timestamptz, request_id text)
       ),
       d AS (
         INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at,
           body_sha256, raw_body, content_type, headers, request_id, remote_address,
           signing_key_fingerprint, warnings)
         SELECT webhook_id, 'NPPReceivePayment', true, received_at,
           encode(sha256(convert_to(body, 'UTF8')), 'hex'), convert_to(body, 'UTF8'),
           'application/json; charset=utf-8', headers, request_id, '10.0.3.17',
           $2, '[]'
         FROM src ORDER BY webhook_id
         RETURNING webhook_id, delivery_body_json(raw_body) AS payload, received_at
       ),
       p AS (
         INSERT INTO npp_payments (transaction_id, webhook_id, end_to_end_id, amount,
           date_time_local, date_time_text, receipt_number, pay_id, remitter_name, bsb,
           account_number, remittance_information, received_at, account_name, pay_id_name,
           source_bsb, source_account_number, source_account_name)
         SELECT payload->>'TransactionId', webhook_id, payload->>'EndToEndId',
           (payload->>'Amount')::numeric, left(payload->>'DateTime', 26)::timestamp,
           payload->>'DateTime', payload->>'ReceiptNumber', payload->>'PayId',
           payload->>'RemitterName', payload->>'Bsb', payload->>'AccountNumber',
           payload->>'PaymentDescription', received_at, payload->>'AccountName',
           payload->>'PayIdName', payload->>'SourceBsb', payload->>'SourceAccountNumber',
           payload->>'SourceAccountName'
         FROM d
       )
       INSERT INTO feed_events (position, type, event_name, business_key, webhook_id, created_at,
         relay_state, attempts, first_attempt_at, sent_at)
       SELECT src.position, 'payment.received', 'NPPReceivePayment', d.payload->>'TransactionId',
         d.webhook_id, d.received_at, 'sent', 1, d.received_at + interval '1 minute',
         d.received_at + interval '1 minute'
       FROM d JOIN src USING (webhook_id)`,
      [JSON.stringify(rows), randomBytes(32).toString('hex')],
    );
    if ((first / SEED_BATCH) % 20 === 0) log(`seeded ${first + rows.length} of ${count}`);
  }
  await client.query('VACUUM ANALYZE');
}

interface Sizes {
  webhook_deliveries: number;
  feed_events: number;
  typed: number;
  total: number;
  perDelivery: number;
}

async function sizes(client: pg.Client, deliveries: number): Promise<Sizes> {
  const size = async (table: string) =>
    Number((await client.query(`SELECT pg_total_relation_size($1)::text AS n`, [table])).rows[0].n);
  const webhook = await size('webhook_deliveries');
  const feed = await size('feed_events');
  let typed = 0;
  for (const table of TYPED_TABLES) typed += await size(table);
  const total = webhook + feed + typed;
  return {
    webhook_deliveries: webhook,
    feed_events: feed,
    typed,
    total,
    perDelivery: Math.round(total / deliveries),
  };
}

async function walLsn(client: pg.Client): Promise<string> {
  return (await client.query(`SELECT pg_current_wal_lsn()::text AS lsn`)).rows[0].lsn as string;
}

async function walSince(client: pg.Client, lsn: string): Promise<number> {
  return Number(
    (await client.query(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::text AS n`, [lsn]))
      .rows[0].n,
  );
}

/** A fresh, migrated database; `work` gets a client on it; dropped afterwards. */
async function withDatabase<T>(
  adminUrl: string,
  work: (client: pg.Client, url: string) => Promise<T>,
): Promise<T> {
  const name = `retention_measure_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = databaseUrl(adminUrl, name);
  const client = new pg.Client({ connectionString: url });
  try {
    const migrated = await runScript('src/cli/main.ts', { DATABASE_URL: url }, ['migrate']);
    if (migrated.code !== 0) throw new Error(`migration failed: ${migrated.stderr}`);
    await client.connect();
    return await work(client, url);
  } finally {
    await client.end().catch(() => {});
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/** One `npm run prune` with these retentions and no pause: its summary, time and WAL. */
async function timedPrune(client: pg.Client, url: string, env: Record<string, string>) {
  await client.query('CHECKPOINT');
  const lsn = await walLsn(client);
  const started = process.hrtime.bigint();
  const run = await runScript(
    'src/cli/main.ts',
    { DATABASE_URL: url, RETENTION_BATCH_PAUSE_MS: '0', ...env },
    ['prune', '--max-seconds', '86400'],
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.code !== 0) throw new Error(`prune exited ${run.code}: ${run.stderr}`);
  const summary = JSON.parse(run.stdout) as {
    steps: { table: string; rows: number; batches: number; elapsedMs: number }[];
  };
  return { seconds, walBytes: await walSince(client, lsn), steps: summary.steps };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      deliveries: { type: 'string', default: '200000' },
      'cost-deliveries': { type: 'string', default: '1000000' },
      'admin-url': {
        type: 'string',
        default: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      },
    },
  });
  const adminUrl = values['admin-url'];
  const deliveries = Number(values.deliveries);
  const costDeliveries = Number(values['cost-deliveries']);
  const server = new pg.Client({ connectionString: adminUrl });
  await server.connect();
  const settings = (
    await server.query(
      `SELECT version(), current_setting('shared_buffers') AS shared_buffers,
         current_setting('max_wal_size') AS max_wal_size,
         current_setting('full_page_writes') AS full_page_writes,
         current_setting('synchronous_commit') AS synchronous_commit`,
    )
  ).rows[0] as Record<string, string>;
  await server.end();
  const result: Record<string, unknown> = { server: settings };

  if (deliveries > 0) {
    result.bytesPerDelivery = await withDatabase(adminUrl, async (client, url) => {
      log(`seeding ${deliveries} deliveries for the size figures`);
      await seed(client, deliveries);
      const before = await sizes(client, deliveries);
      const columns = (
        await client.query(
          `SELECT avg(octet_length(raw_body))::int AS raw_body,
             avg(pg_column_size(payload))::int AS payload,
             avg(pg_column_size(headers))::int AS headers,
             avg(pg_column_size(d.*))::int AS row
           FROM webhook_deliveries d`,
        )
      ).rows[0] as Record<string, number>;
      const prune = await timedPrune(client, url, {});
      const afterPrune = await sizes(client, deliveries);
      await client.query('VACUUM ANALYZE');
      const afterVacuum = await sizes(client, deliveries);
      await client.query('VACUUM FULL');
      const afterVacuumFull = await sizes(client, deliveries);
      return {
        deliveries,
        before,
        afterPrune,
        afterVacuum,
        afterVacuumFull,
        averageColumnBytesBefore: columns,
        prune,
      };
    });
  }

  if (costDeliveries > 0) {
    result.cost = await withDatabase(adminUrl, async (client, url) => {
      log(`seeding ${costDeliveries} deliveries for the cost figures`);
      await seed(client, costDeliveries);
      const indexes: Record<string, number> = {};
      for (const [name, definition] of [
        [
          'webhook_deliveries_unpruned',
          'ON webhook_deliveries (received_at, webhook_id) WHERE pruned_at IS NULL',
        ],
        [
          'feed_events_unsent_delivery',
          `ON feed_events (webhook_id) WHERE relay_state <> 'sent' AND position IS NOT NULL`,
        ],
      ] as const) {
        await client.query(`DROP INDEX ${name}`);
        const started = process.hrtime.bigint();
        await client.query(`CREATE INDEX ${name} ${definition}`);
        indexes[name] = Number(process.hrtime.bigint() - started) / 1e9;
      }
      const before = await sizes(client, costDeliveries);
      const raw = await timedPrune(client, url, {
        RETENTION_FEED_DAYS: '0',
        RETENTION_RECOVERY_DAYS: '0',
      });
      const feed = await timedPrune(client, url, {
        RETENTION_RAW_DAYS: '0',
        RETENTION_RECOVERY_DAYS: '0',
      });
      const per100k = (run: typeof raw, table: string) => {
        const step = run.steps.find((s) => s.table === table);
        const rows = step?.rows ?? 0;
        return {
          rows,
          batches: step?.batches ?? 0,
          seconds: run.seconds,
          stepSeconds: (step?.elapsedMs ?? 0) / 1000,
          secondsPer100k: rows
            ? Number((((step?.elapsedMs ?? 0) / 1000) * (1e5 / rows)).toFixed(2))
            : null,
          walBytes: run.walBytes,
          walBytesPerRow: rows ? Math.round(run.walBytes / rows) : null,
        };
      };
      return {
        deliveries: costDeliveries,
        migrationIndexBuildSeconds: indexes,
        before,
        rawRequests: per100k(raw, 'webhook_deliveries'),
        feedEvents: per100k(feed, 'feed_events'),
      };
    });
  }
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
