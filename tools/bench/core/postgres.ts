import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The machine's Postgres, as the harness uses it: fresh databases, counts, settings. */

export interface PostgresFacts {
  version: string;
  settings: Record<string, string>;
}

/** Read, never changed: these decide what a commit costs, so the report names them. */
const REPORTED_SETTINGS = [
  'synchronous_commit',
  'fsync',
  'wal_sync_method',
  'full_page_writes',
  'commit_delay',
  'shared_buffers',
  'max_connections',
  // What a large database's upkeep costs (--stored): vacuuming, and how often it checkpoints.
  'autovacuum',
  'max_wal_size',
];

export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function readPostgresFacts(adminUrl: string): Promise<PostgresFacts> {
  return withClient(adminUrl, async (client) => {
    const version = await client.query<{ server_version: string }>('SHOW server_version');
    const rows = await client.query<{ name: string; setting: string; unit: string | null }>(
      'SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1) ORDER BY name',
      [REPORTED_SETTINGS],
    );
    return {
      version: version.rows[0]?.server_version ?? 'unknown',
      settings: Object.fromEntries(
        rows.rows.map((row) => [row.name, row.unit ? `${row.setting} (${row.unit})` : row.setting]),
      ),
    };
  });
}

/** A unique database name that says it belongs to the benchmark (a killed run names it). */
export function benchDatabaseName(label: string): string {
  return `bench_${label.replace(/[^a-z0-9]/g, '_')}_${randomBytes(4).toString('hex')}`;
}

/** A fresh, uniquely named database; the name says it belongs to the benchmark. */
export async function createBenchDatabase(adminUrl: string, label: string): Promise<string> {
  const name = benchDatabaseName(label);
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  return name;
}

export async function dropBenchDatabase(adminUrl: string, name: string): Promise<void> {
  await withClient(adminUrl, (client) =>
    client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  );
}

/** Databases a killed run left behind, so the operator can drop them. */
export async function listBenchDatabases(adminUrl: string): Promise<string[]> {
  return withClient(adminUrl, async (client) => {
    const rows = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'bench\\_%' ORDER BY datname",
    );
    return rows.rows.map((row) => row.datname);
  });
}

/**
 * One open connection to a server's database: counts what was stored after a phase, then empties
 * the tables so the next phase starts from the same empty state and can reuse the pre-signed
 * deliveries. The migration bookkeeping tables are kept.
 */
export interface StoreProbe {
  count(table: string): Promise<number>;
  truncateAll(): Promise<void>;
  close(): Promise<void>;
}

export async function openStoreProbe(url: string): Promise<StoreProbe> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    count: async (table) => {
      const result = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
      return Number(result.rows[0]?.n ?? 0);
    },
    truncateAll: async () => {
      const tables = await client.query<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE 'kysely\\_%'",
      );
      if (tables.rows.length === 0) return;
      const names = tables.rows.map((row) => `"${row.tablename}"`).join(', ');
      await client.query(`TRUNCATE ${names}`);
    },
    close: () => client.end(),
  };
}

export interface PostgresPids {
  /** Client backends connected to the server's database: the work its queries cause. */
  backends: number[];
  /** The cluster's own processes (WAL writer, checkpointer, autovacuum, ...). */
  background: number[];
}

/**
 * The Postgres processes whose CPU belongs to a server's load: the backends connected to its
 * database, and the cluster's background processes (their work during a phase is the WAL and
 * buffers this server's writes caused). Other databases' backends are someone else's work.
 */
export async function postgresPids(
  adminUrl: string,
  database: string | undefined,
): Promise<PostgresPids> {
  return withClient(adminUrl, async (client) => {
    const rows = await client.query<{ pid: number; backend: boolean }>(
      `SELECT pid, backend_type = 'client backend' AS backend FROM pg_stat_activity
        WHERE pid <> pg_backend_pid()
          AND (backend_type <> 'client backend' OR datname = $1)`,
      [database ?? null],
    );
    return {
      backends: rows.rows.filter((row) => row.backend).map((row) => row.pid),
      background: rows.rows.filter((row) => !row.backend).map((row) => row.pid),
    };
  });
}
