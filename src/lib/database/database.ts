import { PostgresDialect, type Kysely } from 'kysely';
import pg from 'pg';
import { PooledKysely } from './prepared-statement.ts';
import { databaseSettings } from './settings.ts';

/**
 * The tables, as Kysely sees them: empty here, since src/lib knows no module. Each module that
 * owns tables declares them beside itself and adds them to this interface by declaration
 * merging (`declare module '…/lib/database/database.ts' { interface Database { … } }`): the
 * receiver's in src/receiver/storage/tables.ts, the feed's in src/feed/tables.ts (the platform's,
 * which the receiving pipeline never touches, stay apart: src/platform/storage/tables.ts). Column types
 * are what the driver hands back: bigint, numeric and timestamp (without zone) come back as
 * strings, so nothing is rounded or shifted into the process's time zone on the way out.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the modules (declaration merging)
export interface Database {}

export type Db = Kysely<Database>;

/**
 * The one place that says which Postgres types come back as text rather than parsed:
 * `timestamp without time zone` (a Sydney wall-clock time; parsed, it would be shifted into the
 * process's zone). pg already leaves bigint and numeric as text. A statement that needs the exact
 * text of anything else (an instant, jsonb) casts it in SQL (`::text`), so what it reads does not
 * depend on the pool it runs on.
 */
const TIMESTAMP_WITHOUT_ZONE = 1114;
const keepText = (value: string) => value;

export interface DatabaseOptions {
  url: string;
  poolMax: number;
  /** Give up connecting after this long, so a dead database becomes a 5xx rather than a hang. */
  connectionTimeoutMs?: number;
  /**
   * Server-side statement timeout. The delivery statements also time out on our side, a little
   * later (see prepared-statement.ts), for a connection that goes silent.
   */
  statementTimeoutMs?: number;
  /** An idle pooled connection died (database restart); the pool replaces it. */
  onIdleClientError?: (error: Error) => void;
}

export function createDatabase(options: DatabaseOptions): Db {
  return createDatabaseWithPool(options).db;
}

/** The same, also handing back the pool (for its statistics in metrics). */
export function createDatabaseWithPool(options: DatabaseOptions): { db: Db; pool: pg.Pool } {
  // Left out (tests, tools): the variables' defaults, from their one declaration.
  const statementTimeoutMs =
    options.statementTimeoutMs ?? databaseSettings.defaults.databaseStatementTimeoutMs;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolMax,
    connectionTimeoutMillis:
      options.connectionTimeoutMs ?? databaseSettings.defaults.databaseConnectionTimeoutMs,
    statement_timeout: statementTimeoutMs,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === TIMESTAMP_WITHOUT_ZONE
          ? keepText
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // Without a listener, an idle client losing its connection would crash the process.
  // pg-pool hangs the whole client on the error (its connection, socket and parameters), which
  // a log line would then dump in full: the handler gets the error without it.
  pool.on('error', (error) => {
    delete (error as Error & { client?: unknown }).client;
    options.onIdleClientError?.(error);
  });
  // pg-pool listens only on idle clients. A checked-out client whose socket dies mid-query
  // emits 'error' too; unheard, that would crash every instance during a database outage.
  // The query in flight already fails with the same error (and its delivery gets a 500).
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  const dialect = { dialect: new PostgresDialect({ pool }) };
  return { db: new PooledKysely<Database>(pool, dialect, statementTimeoutMs), pool };
}
