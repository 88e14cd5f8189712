import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { withClient } from '../common/postgres.ts';

/**
 * The storing servers' databases: a fresh one per server and run (`bench_<server>_<random>`,
 * dropped at the end), and one open connection to each that counts what a round stored and
 * empties the tables before the next, so every round starts from the same state.
 */

export async function createBenchDatabase(adminUrl: string, label: string): Promise<string> {
  const name = `bench_${label.replace(/[^a-z0-9]/g, '_')}_${randomBytes(4).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  return name;
}

export async function dropBenchDatabase(adminUrl: string, name: string): Promise<void> {
  await withClient(adminUrl, (client) =>
    client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  );
}

/** Databases a killed run (kill -9) left behind, so the operator can drop them. */
export async function listBenchDatabases(adminUrl: string): Promise<string[]> {
  return withClient(adminUrl, async (client) => {
    const rows = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'bench\\_%' ORDER BY datname",
    );
    return rows.rows.map((row) => row.datname);
  });
}

/**
 * Rows the migrations or an operator made, which the receiver reads as settings: emptied, the
 * feed would have no notification key and no endpoints.
 */
const SETTINGS_TABLES = ['feed_endpoints', 'feed_notification_key', 'feed_relay_control'];

export interface StoreProbe {
  count(table: string): Promise<number>;
  /** Every table but the migration bookkeeping and settings, emptied; then a CHECKPOINT. */
  truncateAll(): Promise<void>;
  /** `count` feed endpoints (every event type) POSTing to `url`, for --feed-endpoints. */
  addFeedEndpoints(count: number, url: string): Promise<void>;
  /** A CHECKPOINT: the next round does not pay for the writes of this one. */
  checkpoint(): Promise<void>;
  close(): Promise<void>;
}

export async function openStoreProbe(url: string): Promise<StoreProbe> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const checkpoint = async () => {
    await client.query('CHECKPOINT');
  };
  return {
    count: async (table) => {
      const result = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
      return Number(result.rows[0]?.n ?? 0);
    },
    truncateAll: async () => {
      const tables = await client.query<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE 'kysely\\_%'",
      );
      const names = tables.rows
        .filter((row) => !SETTINGS_TABLES.includes(row.tablename))
        .map((row) => `"${row.tablename}"`)
        .join(', ');
      if (names !== '') await client.query(`TRUNCATE ${names}`);
      // The feed starts again from position 1: every endpoint's cursor with it.
      if (tables.rows.some((row) => row.tablename === 'feed_endpoints')) {
        await client.query('UPDATE feed_endpoints SET fanned_through = 0');
      }
      await checkpoint();
    },
    addFeedEndpoints: async (count, url) => {
      for (let n = 1; n <= count; n += 1) {
        await client.query(
          `INSERT INTO feed_endpoints (name, kind, target, types, secrets)
           VALUES ($1, 'http', $2, '{*}', ARRAY[$3])`,
          [`bench-${n}`, url, `whsec_${randomBytes(32).toString('base64')}`],
        );
      }
    },
    checkpoint,
    close: () => client.end(),
  };
}

/**
 * The first delivery number a kept database has not seen: deliveries the load sent in earlier
 * runs are numbered from FIRST_WEBHOOK_ID, seed-2m.sql's from FIRST_WEBHOOK_ID + 10^9.
 */
export async function nextDeliveryNumber(url: string, firstWebhookId: number): Promise<number> {
  return withClient(url, async (client) => {
    const result = await client.query<{ next: string }>(
      `SELECT coalesce(max(webhook_id) - $1 + 1, 0) AS next FROM webhook_deliveries
        WHERE webhook_id >= $1 AND webhook_id < $1 + 1000000000`,
      [firstWebhookId],
    );
    return Number(result.rows[0]?.next ?? 0);
  });
}
