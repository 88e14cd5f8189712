import {
  CompiledQuery,
  createQueryId,
  Kysely,
  PostgresQueryCompiler,
  type KyselyConfig,
  type RawBuilder,
} from 'kysely';
import type pg from 'pg';
import { sqlState } from './database-errors.ts';

// Every statement goes through Kysely (its builder, or its `sql` template executed on a Kysely)
// but one: the receiver's store statement (and its rare follow-up), which `runPrepared` hands to
// pg's own API. It runs for every delivery, so it is a named prepared statement (parsed and
// planned once per connection), and it must fail on our side when the database goes silent
// (`query_timeout`): Kysely can express neither. Its text is still a Kysely template, compiled
// by Kysely's Postgres compiler; only its execution is pg's.

/**
 * A hot statement whose text never changes (everything that varies travels as parameters), so
 * each connection parses and plans it once and afterwards only executes it.
 */
export interface PreparedStatement {
  /** The name it is prepared under on each connection (change it when the text changes). */
  readonly name: string;
  readonly text: string;
}

/** Time a statement may take beyond the server's own statement timeout before we give up on it. */
const READ_TIMEOUT_MARGIN_MS = 1000;

/**
 * The app's Kysely, which also keeps the pg pool under it, for `runPrepared`: the store statement
 * runs through pg's own API, named and with a client-side read timeout, which Kysely offers
 * neither.
 */
export class PooledKysely<DB> extends Kysely<DB> {
  /** Client side: a little above the server's statement timeout (0: none, as the server's). */
  readonly readTimeoutMs: number;

  constructor(
    readonly pool: pg.Pool,
    config: KyselyConfig,
    statementTimeoutMs: number,
  ) {
    super(config);
    this.readTimeoutMs = statementTimeoutMs > 0 ? statementTimeoutMs + READ_TIMEOUT_MARGIN_MS : 0;
  }
}

/**
 * The text of a statement written as a Kysely template, compiled once by the compiler the app's
 * Kysely uses (PostgresDialect's, no plugins); its parameters become $1, $2, …
 */
export function preparedStatement(
  name: string,
  template: RawBuilder<unknown>,
  parameterCount: number,
): PreparedStatement {
  const compiled = new PostgresQueryCompiler().compileQuery(
    template.toOperationNode(),
    createQueryId(),
  );
  if (compiled.parameters.length !== parameterCount) {
    throw new Error(
      `${name}: ${compiled.parameters.length} parameters, ${parameterCount} expected`,
    );
  }
  return { name, text: compiled.sql };
}

/** pg's per-query read timeout (`query_timeout`), which its type declarations leave out. */
type TimedQuery = pg.QueryConfig & { query_timeout: number };

/**
 * Runs a prepared statement: the one place a statement goes through pg's API. On the app's
 * pool: named, and bounded on our side too, since the server's statement timeout cannot fire
 * when the server (or the network to it) goes silent without closing the connection; the client
 * is then discarded (its statement may still be on the wire), and so is any client that failed
 * for a reason other than an SQL error, so the pool opens a fresh connection. On anything else
 * (a transaction, in tests and tools), through Kysely as an ordinary query.
 */
export async function runPrepared<Row, DB>(
  db: Kysely<DB>,
  statement: PreparedStatement,
  values: readonly unknown[],
): Promise<Row[]> {
  if (!(db instanceof PooledKysely)) {
    const result = await db.executeQuery<Row>(CompiledQuery.raw(statement.text, [...values]));
    return result.rows;
  }
  const client = await db.pool.connect();
  let broken: Error | undefined;
  try {
    const query: TimedQuery = {
      name: statement.name,
      text: statement.text,
      values: [...values],
      query_timeout: db.readTimeoutMs,
    };
    const result = await client.query<Row & pg.QueryResultRow>(query);
    return result.rows;
  } catch (error) {
    if (sqlState(error) === undefined) {
      broken = error instanceof Error ? error : new Error(String(error));
    }
    throw error;
  } finally {
    client.release(broken);
  }
}
