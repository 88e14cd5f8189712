import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../../src/lib/logger.ts';
import { createDatabase } from '../../../src/lib/database/database.ts';
import { assertMigrated, migrateToLatest } from '../../../src/lib/database/migrator.ts';
import { freePort } from '../../../tools/common/free-port.ts';
import {
  CREDENTIALS,
  startTestSandbox,
  subscribe,
  type TestSandbox,
} from '../../../tools/sandbox/test/support.ts';
import { bodyBytes, freshWebhookId } from '../../support/deliveries.ts';
import { eventually, newWebhookSecret, startConsumer } from '../../support/feed-consumer.ts';
import { PROJECT_DIR, runMain, waitFor } from '../../support/receiver-process.ts';
import { publicKeyAsProviderHex, signBody } from '../../support/signing.ts';
import { createTestDatabase, databaseUrl, type TestDatabase } from '../../support/test-database.ts';

/**
 * deploy/sql/roles.sql, applied to a fresh database: the migration job runs as the owner role,
 * then the real receiver process (src/cli/main.ts serve) runs as the receiver role with
 * MIGRATE_ON_START=false, a pull feed and a push relay, scheduled recovery against the sandbox,
 * and the operator commands (quarantine, feed, refund) run under the same role. A merchant's SQL
 * consumer reads the feed view as the feed-reader role and nothing else. Role names carry a
 * per-run prefix (the file's monoova.role_prefix setting), so runs never share roles.
 */

const ROLES_SQL = path.join(PROJECT_DIR, 'deploy/sql/roles.sql');
const PREFIX = `monoova_t${randomBytes(4).toString('hex')}`;
const ROLE = {
  owner: `${PREFIX}_owner`,
  receiver: `${PREFIX}_receiver`,
  reader: `${PREFIX}_feed_reader`,
} as const;
type RoleName = keyof typeof ROLE;
const PASSWORD: Record<RoleName, string> = {
  owner: randomBytes(12).toString('hex'),
  receiver: randomBytes(12).toString('hex'),
  reader: randomBytes(12).toString('hex'),
};
const SECRET = 'Basic cm9sZXMtdGVzdC1zZWNyZXQ=';
const FEED_TOKEN = 'roles-test-feed-token-0123456789abcdef';
const INSUFFICIENT_PRIVILEGE = '42501';

const adminUrl = inject('adminDatabaseUrl');
const databaseName = `receiver_roles_${randomBytes(6).toString('hex')}`;
/** A second database, migrated the old way (by the all-powerful user), then handed over. */
let adopted: TestDatabase | undefined;

function urlAs(role: RoleName, database = databaseName): string {
  const url = new URL(databaseUrl(adminUrl, database));
  url.username = ROLE[role];
  url.password = PASSWORD[role];
  return url.toString();
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const asAdmin = <T>(work: (client: pg.Client) => Promise<T>, database = databaseName) =>
  withClient(databaseUrl(adminUrl, database), work);
const as = <T>(role: RoleName, work: (client: pg.Client) => Promise<T>) =>
  withClient(urlAs(role), work);

/** roles.sql through node-pg (one simple-protocol query: the file's own BEGIN/COMMIT hold). */
async function applyRoles(url: string, options: { passwords?: boolean } = {}): Promise<void> {
  const settings = [`SET monoova.role_prefix = '${PREFIX}';`];
  if (options.passwords) {
    settings.push(
      `SET monoova.owner_password = '${PASSWORD.owner}';`,
      `SET monoova.receiver_password = '${PASSWORD.receiver}';`,
      `SET monoova.feed_reader_password = '${PASSWORD.reader}';`,
    );
  }
  await withClient(url, (client) =>
    client.query(`${settings.join('\n')}\n${readFileSync(ROLES_SQL, 'utf8')}`),
  );
}

const psqlAvailable = spawnSync('psql', ['--version']).status === 0;

/** roles.sql as an operator runs it: psql -v ON_ERROR_STOP=1 -f, the prefix from PGOPTIONS. */
function applyRolesWithPsql(url: string): void {
  const result = spawnSync(
    'psql',
    ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', ROLES_SQL],
    {
      env: { PATH: process.env.PATH ?? '', PGOPTIONS: `-c monoova.role_prefix=${PREFIX}` },
      encoding: 'utf8',
    },
  );
  expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
}

/** The SQLSTATE a statement fails with, or 'ok'. */
async function outcome(client: pg.Client, text: string): Promise<string> {
  await client.query('SAVEPOINT attempt');
  try {
    await client.query(text);
    await client.query('RELEASE SAVEPOINT attempt');
    return 'ok';
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT attempt');
    return (error as { code?: string }).code ?? String(error);
  }
}

/** Runs each statement in a transaction that is rolled back, answering its SQLSTATE or 'ok'. */
async function outcomes(role: RoleName, statements: string[]): Promise<Record<string, string>> {
  return as(role, async (client) => {
    await client.query('BEGIN');
    const result: Record<string, string> = {};
    for (const statement of statements) result[statement] = await outcome(client, statement);
    await client.query('ROLLBACK');
    return result;
  });
}

const runCommand = async (name: string, args: string[], env: Record<string, string>) => {
  const command = runMain(name, { LOG_LEVEL: 'warn', ...env }, { args });
  const code = await command.exited;
  return { code, output: command.output() };
};

beforeAll(async () => {
  await withClient(adminUrl, (admin) => admin.query(`CREATE DATABASE ${databaseName}`));
  // First run, by the administrator, on an empty database: roles, database, schema.
  await applyRoles(databaseUrl(adminUrl, databaseName), { passwords: true });
  // The migration job, as the owner role (as `npm run migrate:prod` would).
  const migrate = await runCommand('migrate', [], { DATABASE_URL: urlAs('owner') });
  expect(migrate.code, migrate.output).toBe(0);
  // Then roles.sql again, as the owner role itself: grants on the tables it just made.
  await applyRoles(urlAs('owner'));
}, 120_000);

afterAll(async () => {
  await withClient(adminUrl, async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  });
  await adopted?.drop();
  await withClient(adminUrl, async (admin) => {
    for (const role of Object.values(ROLE)) await admin.query(`DROP ROLE IF EXISTS ${role}`);
  });
});

describe('least-privilege roles (deploy/sql/roles.sql)', () => {
  it('when the receiver runs as the receiver role with MIGRATE_ON_START=false, then it stores, quarantines, recovers, feeds (pull and push), and the operator commands work under the same role', async () => {
    const sandbox = await startTestSandbox({ retryDelayMs: 50 });
    const feedSecret = newWebhookSecret();
    const consumer = await startConsumer({ secret: feedSecret.text });
    const port = await freePort();
    const feedPort = await freePort();
    await subscribe(
      sandbox.call,
      `http://127.0.0.1:${port}/webhooks`,
      ['NPPReceivePayment'],
      SECRET,
    );
    // A payment the platform gives up on while the receiver is down: recovery brings it back.
    const missed = await payment(sandbox, '12.50');

    const provider = {
      PROVIDER_BASE_URL: sandbox.url,
      PROVIDER_AUTH_URL: sandbox.url,
      PROVIDER_API_KEY: CREDENTIALS.apiKey,
      PROVIDER_MACCOUNT: CREDENTIALS.mAccount,
      // The key URL derived from the sandbox's plain-http address (the receiver pins its key).
      SIGNING_KEY_ALLOW_HTTP: 'true',
    };
    const receiver = runMain('serve', {
      DATABASE_URL: urlAs('receiver'),
      MIGRATE_ON_START: 'false',
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: 'off',
      WEBHOOK_SECRETS: SECRET,
      SIGNING_KEY: publicKeyAsProviderHex(sandbox.keys.current().publicKey),
      FEED_TOKEN,
      FEED_PORT: String(feedPort),
      FEED_ASSIGN_INTERVAL_MS: '20',
      FEED_HTTP_URL: consumer.url,
      FEED_HTTP_SECRET: feedSecret.text,
      RECOVERY_INTERVAL_MS: '500',
      ...provider,
    });
    try {
      await waitFor(() => receiver.output().includes('receiver listening'), 'listening', 60_000);
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/readyz`)).status).toBe(200);

      // Scheduled recovery (lease, runs, attempts) asks for the resend; the delivery is stored.
      await eventually(async () => (await storedWebhook(missed.webhookId)) === 1, 30_000);
      const attempts = await asAdmin((c) =>
        c.query<{ outcome: string }>(
          'SELECT outcome FROM recovery_attempts WHERE webhook_id = $1',
          [missed.webhookId],
        ),
      );
      expect(attempts.rows.map((row) => row.outcome)).toContain('resent');

      // A payment delivered live, signed by the platform.
      const live = await payment(sandbox, '40.00');
      await eventually(async () => (await storedWebhook(live.webhookId)) === 1);

      // An authenticated delivery the schema refuses: kept in quarantine, answered 400.
      const refused = bodyBytes({ Amount: '5.00' });
      const answer = await fetch(`${base}/webhooks/NPPReceivePayment`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Webhookid: freshWebhookId(),
          Authorisation: SECRET,
          'Verification-Signature': signBody(refused, sandbox.keys.current().privateKey),
        },
        body: refused,
      });
      expect(answer.status).toBe(400);
      const [quarantined] = (
        await asAdmin((c) => c.query<{ id: string }>('SELECT id FROM quarantined_deliveries'))
      ).rows;
      expect(quarantined).toBeDefined();

      // Pulled through GET /feed (the feed's own pool, LISTEN connection, assigner) ...
      // (Events are numbered after their commit: read until all three are there.)
      type Page = { events: { type: string; data: { businessKey: string } }[] };
      let page: Page = { events: [] };
      const deadline = Date.now() + 15_000;
      while (page.events.length < 3 && Date.now() < deadline) {
        const pulled = await fetch(`http://127.0.0.1:${feedPort}/feed?after=0&wait=2`, {
          headers: { Authorization: `Bearer ${FEED_TOKEN}` },
        });
        expect(pulled.status).toBe(200);
        page = (await pulled.json()) as Page;
      }
      expect(page.events.map((e) => [e.type, e.data.businessKey])).toEqual([
        ['payment.received', missed.transactionId],
        ['payment.received', live.transactionId],
        ['quarantine.opened', String(quarantined?.id)],
      ]);
      // ... and pushed by the relay (claims, sent marks), signed per Standard Webhooks.
      await eventually(() => consumer.accepted().length === 3);
      expect(consumer.unverified()).toBe(0);
      await eventually(async () => {
        const { rows } = await asAdmin((c) =>
          c.query<{ n: string }>(
            `SELECT count(*) AS n FROM feed_endpoint_events r
             JOIN feed_endpoints ep ON ep.id = r.endpoint_id
             WHERE ep.name = 'configured' AND r.state = 'sent'`,
          ),
        );
        return rows[0]?.n === '3';
      });

      // The SQL consumer, as the feed reader: the same events through the view.
      const viewed = await as('reader', (c) =>
        c.query<{ type: string; business_key: string; fields: { amount?: number } }>(
          'SELECT * FROM feed WHERE position > 0 ORDER BY position',
        ),
      );
      expect(viewed.rows.map((row) => [row.type, row.business_key, row.fields.amount])).toEqual([
        ['payment.received', missed.transactionId, 12.5],
        ['payment.received', live.transactionId, 40],
        ['quarantine.opened', String(quarantined?.id), undefined],
      ]);

      // Operator commands under the receiver role (they open the database as the service does).
      const asReceiver = { DATABASE_URL: urlAs('receiver') };
      const resolved = await runCommand(
        'quarantine',
        ['resolve', quarantined?.id ?? '', '--note', 'asked the platform to resend'],
        asReceiver,
      );
      expect(resolved.code, resolved.output).toBe(0);
      for (const args of [['pause', 'roles test'], ['resume'], ['status']]) {
        const command = await runCommand('feed', args, asReceiver);
        expect(command.code, command.output).toBe(0);
      }
      // A refund (its sender lock and the payment lock, rows of named_locks; reservation; outcome). An NPP payment may be
      // refunded 5 minutes after receipt: both clocks are moved past that (the stored row's
      // received_at by the administrator: test set-up, not the role).
      await asAdmin((c) =>
        c.query(
          "UPDATE npp_payments SET received_at = received_at - interval '10 minutes' WHERE transaction_id = $1",
          [live.transactionId],
        ),
      );
      await sandbox.call('POST', '/sandbox/clock', { body: { seconds: 600 } });
      const refund = await runCommand(
        'provider',
        [
          'refund',
          '--transaction-id',
          live.transactionId,
          '--caller-reference',
          'order-roles-1',
          '--amount',
          '1.00',
        ],
        { ...asReceiver, ...provider },
      );
      expect(refund.code, refund.output).toBe(0);
      const refunds = await asAdmin((c) =>
        c.query<{ state: string; caller_reference: string }>(
          'SELECT state, caller_reference FROM refunds',
        ),
      );
      expect(refunds.rows).toEqual([{ state: 'succeeded', caller_reference: 'order-roles-1' }]);

      receiver.child.kill('SIGTERM');
      expect(await receiver.exited, receiver.output()).toBe(0);
      expect(receiver.output()).not.toMatch(/permission denied|42501|must be owner/);

      // Retention (the prune every instance schedules, here as `npm run prune`) under the same
      // role, once what it removes is old enough (dates moved back by the administrator).
      if (existsSync(path.join(PROJECT_DIR, 'src/cli/prune.ts'))) {
        await asAdmin(async (c) => {
          const ago = "interval '10 days'";
          await c.query(
            `UPDATE webhook_deliveries SET received_at = received_at - ${ago} WHERE webhook_id = $1`,
            [missed.webhookId],
          );
          await c.query(`UPDATE feed_events SET created_at = created_at - ${ago}`);
          await c.query(`UPDATE feed_endpoint_events SET sent_at = sent_at - ${ago}`);
          await c.query(`UPDATE feed_attempts SET started_at = started_at - ${ago}`);
          await c.query(`UPDATE quarantined_deliveries SET handled_at = handled_at - ${ago}`);
          await c.query(
            `UPDATE recovery_attempts SET attempted_at = attempted_at - ${ago}, report_day = report_day - 10`,
          );
          await c.query(
            `UPDATE recovery_runs SET started_at = started_at - ${ago}, finished_at = finished_at - ${ago}`,
          );
        });
        const prune = await runCommand('prune', [], {
          ...asReceiver,
          FEED_HTTP_URL: consumer.url,
          FEED_HTTP_SECRET: feedSecret.text,
          RETENTION_RAW_DAYS: '1',
          RETENTION_FEED_DAYS: '1',
          RETENTION_RECOVERY_DAYS: '1',
          RETENTION_FEED_ATTEMPTS_DAYS: '1',
        });
        expect(prune.code, prune.output).toBe(0);
        const after = await asAdmin(async (c) => ({
          pruned: (
            await c.query(
              'SELECT webhook_id::text FROM webhook_deliveries WHERE raw_body IS NULL AND pruned_at IS NOT NULL',
            )
          ).rows,
          feedEvents: Number((await c.query('SELECT count(*) AS n FROM feed_events')).rows[0].n),
          deliveryState: Number(
            (await c.query('SELECT count(*) AS n FROM feed_endpoint_events')).rows[0].n,
          ),
          feedAttempts: Number(
            (await c.query('SELECT count(*) AS n FROM feed_attempts')).rows[0].n,
          ),
          attempts: Number(
            (await c.query('SELECT count(*) AS n FROM recovery_attempts')).rows[0].n,
          ),
          quarantineBodies: (
            await c.query('SELECT octet_length(raw_body) AS bytes FROM quarantined_deliveries')
          ).rows,
        }));
        expect(after).toEqual({
          pruned: [{ webhook_id: missed.webhookId }],
          feedEvents: 0,
          deliveryState: 0,
          feedAttempts: 0,
          attempts: 0,
          quarantineBodies: [{ bytes: 0 }],
        });
      }
    } finally {
      receiver.child.kill('SIGKILL');
      await consumer.close();
    }
  }, 180_000);

  it('when the receiver role tries DDL, TRUNCATE, or writes the code never makes, then Postgres refuses each (42501)', async () => {
    const refused = [
      'CREATE TABLE roles_test_new (id int)',
      'CREATE TEMP TABLE roles_test_temp (id int)',
      'CREATE FUNCTION roles_test_fn() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$',
      'CREATE VIEW roles_test_view AS SELECT 1 AS one',
      'DROP TABLE webhook_deliveries',
      'ALTER TABLE refunds ADD COLUMN roles_test int',
      'CREATE INDEX roles_test_index ON feed_events (created_at)',
      'TRUNCATE webhook_deliveries CASCADE',
      'TRUNCATE feed_events',
      'DELETE FROM webhook_deliveries',
      'DELETE FROM quarantined_deliveries',
      'DELETE FROM conflicts',
      'DELETE FROM payto_unmatched_receipts',
      'DELETE FROM npp_payments',
      'UPDATE webhook_deliveries SET body_sha256 = body_sha256',
      'UPDATE webhook_deliveries SET webhook_id = webhook_id',
      'UPDATE webhook_deliveries SET received_at = received_at',
      'UPDATE npp_payments SET amount = amount',
      'UPDATE credit_rejections SET amount = amount',
      'UPDATE quarantined_deliveries SET reasons = reasons',
      'UPDATE conflicts SET resolution = resolution',
      'UPDATE open_conflicts SET resolution = resolution',
      "INSERT INTO kysely_migration (name, timestamp) VALUES ('x', 'y')",
      'DELETE FROM kysely_migration',
      'INSERT INTO feed_relay_control DEFAULT VALUES',
      // Issue 24, item 9: what the code never does to refunds and feed events.
      'UPDATE refunds SET amount = amount',
      'UPDATE refunds SET resolved_by = resolved_by',
      'DELETE FROM refunds',
      'DELETE FROM feed_events',
      'UPDATE feed_events SET business_key = business_key',
      // Issue 26: an endpoint's identity, an event's delivery state removed or re-pointed, the
      // attempt log rewritten.
      "UPDATE feed_endpoints SET name = 'renamed'",
      "UPDATE feed_endpoints SET kind = 'nats'",
      "UPDATE feed_endpoints SET declared_by = 'operator'",
      'DELETE FROM feed_endpoint_events',
      'TRUNCATE feed_endpoint_events',
      'UPDATE feed_endpoint_events SET event_id = event_id',
      'UPDATE feed_endpoint_events SET position = position',
      'UPDATE feed_endpoint_events SET endpoint_id = endpoint_id',
      'UPDATE feed_attempts SET outcome = outcome',
      'UPDATE feed_attempts SET error = error',
      'TRUNCATE feed_attempts',
    ];
    expect(await outcomes('receiver', refused)).toEqual(
      Object.fromEntries(refused.map((statement) => [statement, INSUFFICIENT_PRIVILEGE])),
    );
  });

  it('when the receiver manages an endpoint (add, update, pause, remove), then each statement the commands make is allowed, and removing it takes its delivery state and attempts with it', async () => {
    const result = await as('receiver', async (c) => {
      await c.query('BEGIN');
      const added = await outcome(
        c,
        `INSERT INTO feed_endpoints (name, kind, target, types, secrets)
         VALUES ('roles-test', 'http', 'https://consumer.test/feed', '{payment.*}', '{whsec_AAAA}')`,
      );
      const updated = await outcome(
        c,
        `UPDATE feed_endpoints SET types = '{*}', secrets = '{whsec_AAAA,whsec_BBBB}',
           paused = true, paused_reason = 'test', fanned_through = 0, enabled = false,
           updated_at = now() WHERE name = 'roles-test'`,
      );
      const rows = await outcome(
        c,
        `INSERT INTO feed_endpoint_events (endpoint_id, position, event_id, type, event_name, business_key)
         SELECT id, 1, 1, 'payment.received', 'NPPReceivePayment', 'k' FROM feed_endpoints WHERE name = 'roles-test'`,
      );
      const attempt = await outcome(
        c,
        `INSERT INTO feed_attempts (endpoint_id, event_id, position, attempt, started_at, duration_ms, outcome, instance)
         SELECT id, 1, 1, 1, now(), 5, 'failed', 'roles-test' FROM feed_endpoints WHERE name = 'roles-test'`,
      );
      const removed = await outcome(c, "DELETE FROM feed_endpoints WHERE name = 'roles-test'");
      const left = await c.query<{ rows: string; attempts: string }>(
        `SELECT (SELECT count(*) FROM feed_endpoint_events WHERE event_id = 1 AND position = 1
                   AND endpoint_id NOT IN (SELECT id FROM feed_endpoints)) AS rows,
                (SELECT count(*) FROM feed_attempts WHERE instance = 'roles-test') AS attempts`,
      );
      await c.query('ROLLBACK');
      return { added, updated, rows, attempt, removed, left: left.rows[0] };
    });
    expect(result).toEqual({
      added: 'ok',
      updated: 'ok',
      rows: 'ok',
      attempt: 'ok',
      removed: 'ok',
      left: { rows: '0', attempts: '0' },
    });
  });

  it('when roles.sql has run after the migration job, then the receiver holds exactly the privileges it lists', async () => {
    const retention = await columnExists('webhook_deliveries', 'pruned_at');
    const granted = await asAdmin(async (c) => {
      const tables = await c.query<{ table_name: string; privileges: string }>(
        `SELECT table_name, string_agg(privilege_type, ', ' ORDER BY privilege_type) AS privileges
         FROM information_schema.role_table_grants
         WHERE grantee = $1 AND table_schema = 'public' GROUP BY table_name`,
        [ROLE.receiver],
      );
      const columns = await c.query<{ table_name: string; columns: string }>(
        `SELECT table_name, string_agg(column_name, ', ' ORDER BY column_name) AS columns
         FROM information_schema.column_privileges
         WHERE grantee = $1 AND table_schema = 'public' AND privilege_type = 'UPDATE'
           AND (table_name, 'UPDATE') NOT IN (SELECT table_name, privilege_type
             FROM information_schema.role_table_grants WHERE grantee = $1)
         GROUP BY table_name`,
        [ROLE.receiver],
      );
      return {
        tables: Object.fromEntries(tables.rows.map((r) => [r.table_name, r.privileges])),
        updatableColumns: Object.fromEntries(columns.rows.map((r) => [r.table_name, r.columns])),
      };
    });
    expect(granted).toEqual({
      tables: {
        webhook_deliveries: 'INSERT, SELECT',
        npp_payments: 'INSERT, SELECT',
        payto_payments: 'INSERT, SELECT',
        credit_rejections: 'INSERT, SELECT',
        ...((await tableExists('direct_credits')) && {
          direct_credits: 'INSERT, SELECT',
          direct_credit_batches: 'INSERT, SELECT',
        }),
        conflicts: 'INSERT, SELECT',
        quarantined_deliveries: 'INSERT, SELECT',
        // Narrowed on purpose (issue 24, item 9): UPDATE on the columns the code sets (below),
        // and deletes of refunds and feed events only through the checking functions.
        feed_events: 'INSERT, SELECT',
        feed_relay_control: 'SELECT',
        // Issue 26: `endpoints remove` deletes an endpoint (its rows go by ON DELETE CASCADE);
        // the prune deletes old attempts, and an event's delivery state only with the event.
        ...((await tableExists('feed_endpoints')) && {
          feed_endpoints: 'DELETE, INSERT, SELECT',
          feed_endpoint_events: 'INSERT, SELECT',
          feed_attempts: 'DELETE, INSERT, SELECT',
        }),
        recovery_attempts: 'DELETE, INSERT, SELECT, UPDATE',
        recovery_runs: 'DELETE, INSERT, SELECT, UPDATE',
        recovery_row_problems: 'DELETE, INSERT, SELECT, UPDATE',
        payto_unmatched_receipts: 'INSERT, SELECT',
        leases: 'DELETE, INSERT, SELECT, UPDATE',
        // The view that keeps the old name for code from before 2026-11-29T00 (rolling upgrade).
        recovery_leases: 'DELETE, INSERT, SELECT, UPDATE',
        recovery_progress: 'DELETE, INSERT, SELECT, UPDATE',
        refunds: 'INSERT, SELECT',
        named_locks: 'INSERT, SELECT',
        feed_notification_key: 'SELECT',
        kysely_migration: 'SELECT',
        kysely_migration_lock: 'SELECT',
      },
      updatableColumns: {
        quarantined_deliveries: `handled_at, handled_note, handling${retention ? ', headers, pruned_at, raw_body' : ''}`,
        ...(retention && { webhook_deliveries: 'headers, payload, pruned_at, raw_body' }),
        feed_events:
          'attempts, claimed_by, claimed_until, dead_at, first_attempt_at, last_error, next_attempt_at, position, relay_state, sent_at',
        feed_relay_control: 'changed_at, paused, reason',
        ...((await tableExists('feed_endpoints')) && {
          feed_endpoints:
            'concurrency, credentials, enabled, fanned_through, max_age_ms, options, paused, paused_reason, rate_per_second, secrets, target, timeout_ms, types, updated_at',
          feed_endpoint_events:
            'attempts, claimed_by, claimed_until, dead_at, first_attempt_at, last_error, next_attempt_at, replays, sent_at, state',
        }),
        payto_unmatched_receipts: 'last_seen_at, report_row, resolved_at',
        refunds:
          'attempts, completed_at, dialect, fee_amount_excluding_gst, fee_amount_gst_component, fee_amount_including_gst, http_status, provider_status, refund_transaction_id, state, status_description',
        named_locks: 'created_at',
      },
    });
  });

  it('when the feed reader reads the feed view, then that is all it may do: no table, no write, no DDL, though it may LISTEN', async () => {
    const refused = [
      'SELECT raw_body FROM webhook_deliveries',
      'SELECT * FROM feed_events',
      // An endpoint's secrets and a broker's credentials; delivery state; attempts.
      'SELECT secrets FROM feed_endpoints',
      'SELECT name FROM feed_endpoints',
      'SELECT * FROM feed_endpoint_events',
      'SELECT * FROM feed_attempts',
      "INSERT INTO feed_endpoints (name, kind, target, types) VALUES ('x', 'http', 'https://x.test', '{*}')",
      'SELECT * FROM npp_payments',
      'SELECT * FROM quarantined_deliveries',
      'SELECT * FROM refunds',
      'SELECT * FROM payments_received',
      'SELECT * FROM kysely_migration',
      "INSERT INTO feed_events (type, event_name, business_key, webhook_id) VALUES ('x', 'x', 'x', 1)",
      "INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256, raw_body, headers) VALUES (1, 'x', false, now(), repeat('0', 64), '', '{}')",
      'UPDATE feed_events SET attempts = 0',
      'CREATE TABLE roles_test_reader (id int)',
    ];
    const result = await as('reader', async (client) => {
      const readOnly = await client.query<{ default_transaction_read_only: string }>(
        'SHOW default_transaction_read_only',
      );
      const feed = await client.query('SELECT * FROM feed ORDER BY position LIMIT 1');
      await client.query('LISTEN feed_positions');
      // Read-only sessions refuse writes before privileges are looked at: take that away to
      // show the privileges alone refuse them too.
      await client.query('SET default_transaction_read_only = off');
      await client.query('BEGIN');
      const answers: Record<string, string> = {};
      for (const statement of refused) answers[statement] = await outcome(client, statement);
      await client.query('ROLLBACK');
      return {
        readOnly: readOnly.rows[0]?.default_transaction_read_only,
        feedColumns: feed.fields.map((f) => f.name),
        answers,
      };
    });
    expect(result).toEqual({
      readOnly: 'on',
      feedColumns: expect.arrayContaining([
        'position',
        'type',
        'business_key',
        'fields',
        'payload',
      ]),
      answers: Object.fromEntries(refused.map((s) => [s, INSUFFICIENT_PRIVILEGE])),
    });
    // And its sessions are read-only by default (25006 before any privilege check).
    const readOnlyWrite = await outcomes('reader', ['UPDATE feed_events SET attempts = 0']);
    expect(Object.values(readOnlyWrite)).toEqual(['25006']);
  });

  it('when a later migration (as the owner) creates a table, then default privileges give the receiver read, insert and update on it, and nothing more', async () => {
    await as('owner', (c) =>
      c.query(
        'CREATE TABLE roles_test_future (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, note text, n serial)',
      ),
    );
    try {
      const receiver = await outcomes('receiver', [
        "INSERT INTO roles_test_future (note) VALUES ('a')",
        "UPDATE roles_test_future SET note = 'b'",
        'SELECT * FROM roles_test_future',
        'DELETE FROM roles_test_future',
        'TRUNCATE roles_test_future',
        'DROP TABLE roles_test_future',
      ]);
      expect(Object.values(receiver)).toEqual(['ok', 'ok', 'ok', '42501', '42501', '42501']);
      const reader = await outcomes('reader', ['SELECT * FROM roles_test_future']);
      expect(Object.values(reader)).toEqual([INSUFFICIENT_PRIVILEGE]);
    } finally {
      await as('owner', (c) => c.query('DROP TABLE roles_test_future'));
    }
  });

  it('when a migration adds a table or view, then roles.sql must name it (otherwise it keeps only the default privileges)', async () => {
    const text = readFileSync(ROLES_SQL, 'utf8');
    const relations = await asAdmin((c) =>
      c.query<{ relname: string }>(
        `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY 1`,
      ),
    );
    const unnamed = relations.rows
      .map((r) => r.relname)
      .filter((name) => !text.includes(`('${name}', '`));
    expect(unnamed, 'add these to the list in deploy/sql/roles.sql').toEqual([]);
  });

  it('when roles.sql runs again (psql, as the administrator), then nothing changes: it is idempotent', async () => {
    const before = await privilegeSnapshot();
    if (psqlAvailable) applyRolesWithPsql(databaseUrl(adminUrl, databaseName));
    else await applyRoles(databaseUrl(adminUrl, databaseName));
    await applyRoles(urlAs('owner'));
    expect(await privilegeSnapshot()).toEqual(before);
  });

  it('when a database was migrated by the old all-powerful user, then roles.sql hands every object to the owner role, and the owner migrates while the receiver only checks', async () => {
    adopted = await createTestDatabase();
    const name = new URL(adopted.url).pathname.slice(1);
    await applyRoles(databaseUrl(adminUrl, name));
    const foreign = await adopted.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relowner <> $1::regrole
       UNION ALL
       SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'public' AND p.proowner <> $1::regrole
       UNION ALL
       SELECT nspname FROM pg_namespace WHERE nspname = 'public' AND nspowner <> $1::regrole`,
      [ROLE.owner],
    );
    expect(foreign).toEqual([]);

    const owner = createDatabase({ url: urlAs('owner', name), poolMax: 1 });
    const receiver = createDatabase({ url: urlAs('receiver', name), poolMax: 1 });
    try {
      await migrateToLatest(owner, createLogger('silent'));
      await assertMigrated(receiver);
      // The owner may now change what the old user made (what the next migration will do).
      await withClient(urlAs('owner', name), async (c) => {
        await c.query('BEGIN');
        await c.query('ALTER TABLE webhook_deliveries ADD COLUMN roles_test int');
        await c.query('ROLLBACK');
      });
    } finally {
      await owner.destroy();
      await receiver.destroy();
    }
  });
});

async function payment(
  sandbox: TestSandbox,
  amount: string,
): Promise<{ webhookId: string; transactionId: string }> {
  const answer = await sandbox.call('POST', '/sandbox/payments?wait=true', {
    body: { event: 'NPPReceivePayment', amount },
  });
  expect(answer.status, answer.text).toBe(200);
  const body = answer.body as { webhookIds: string[]; payment: { TransactionId: string } };
  return { webhookId: body.webhookIds[0] ?? '', transactionId: body.payment.TransactionId };
}

async function storedWebhook(webhookId: string): Promise<number> {
  const { rows } = await asAdmin((c) =>
    c.query<{ n: string }>('SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = $1', [
      webhookId,
    ]),
  );
  return Number(rows[0]?.n);
}

async function columnExists(table: string, column: string): Promise<boolean> {
  const { rows } = await asAdmin((c) =>
    c.query<{ found: boolean }>(
      `SELECT EXISTS (SELECT FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name = $1 AND column_name = $2) AS found`,
      [table, column],
    ),
  );
  return rows[0]?.found === true;
}

async function tableExists(name: string): Promise<boolean> {
  const { rows } = await asAdmin((c) =>
    c.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [`public.${name}`]),
  );
  return rows[0]?.found === true;
}

/** Owners and ACLs of the database, the schema, every relation and function, default ACLs. */
async function privilegeSnapshot() {
  return asAdmin(async (c) => {
    const { rows } = await c.query(
      `SELECT 'database' AS kind, datname::text AS name, datdba::regrole::text AS owner, datacl::text AS acl
         FROM pg_database WHERE datname = current_database()
       UNION ALL
       SELECT 'schema', nspname, nspowner::regrole::text, nspacl::text FROM pg_namespace WHERE nspname = 'public'
       UNION ALL
       SELECT 'relation', c.relname, c.relowner::regrole::text, c.relacl::text
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'
       UNION ALL
       SELECT 'column', c.relname || '.' || a.attname, NULL, a.attacl::text
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'public' AND a.attacl IS NOT NULL
       UNION ALL
       SELECT 'function', p.oid::regprocedure::text, p.proowner::regrole::text, p.proacl::text
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'
       UNION ALL
       SELECT 'default', defaclobjtype::text, defaclrole::regrole::text, defaclacl::text
         FROM pg_default_acl
       ORDER BY 1, 2`,
    );
    return rows;
  });
}
