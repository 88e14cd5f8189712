import { sql } from 'kysely';
import type { Db } from './database.ts';
import { sqlState } from './database-errors.ts';

/**
 * The database named by DATABASE_URL cannot be used, found when a command starts: one line that
 * names the variable and the fix, never a stack. `kind` decides the exit code
 * (src/cli/exit-codes.ts): `configuration` (no such database, credentials refused: running again
 * unchanged will not help, 2), `unreachable` (nothing answers there, or not in time: once
 * Postgres is up, running again will, 1).
 */
export class DatabaseStartError extends Error {
  override readonly name = 'DatabaseStartError';
  constructor(
    message: string,
    readonly kind: 'configuration' | 'unreachable',
  ) {
    super(message);
  }
}

/** Connection failures pg reports by the system's code, not a SQLSTATE. */
const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name cannot be resolved now',
  ETIMEDOUT: 'no answer in time',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
};

/**
 * One query on `db` (opened on `url`, DATABASE_URL's value): resolves when the database
 * answers, else throws a DatabaseStartError naming where, without the URL's password.
 */
export async function checkDatabaseAnswers(db: Db, url: string): Promise<void> {
  try {
    await sql`SELECT 1`.execute(db);
  } catch (error) {
    throw databaseStartError(error, url);
  }
}

function databaseStartError(error: unknown, url: string): DatabaseStartError {
  const { where, database, user } = describeUrl(url);
  const state = sqlState(error);
  if (state === '3D000') {
    return new DatabaseStartError(
      `DATABASE_URL: database "${database}" does not exist on ${where}: create it (createdb -h ${hostOf(where)} -p ${portOf(where)} ${database}) and run npm run migrate, or point DATABASE_URL at the receiver's database`,
      'configuration',
    );
  }
  if (state === '28P01' || state === '28000') {
    return new DatabaseStartError(
      `DATABASE_URL: ${where} refused the user "${user}" (${state === '28P01' ? 'wrong password' : 'not allowed to connect'}): fix the user or password in DATABASE_URL`,
      'configuration',
    );
  }
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const why =
    (typeof code === 'string' ? NETWORK_CODES[code] : undefined) ??
    (/timeout/i.test(message) ? 'no answer in time' : (state ?? message.split('\n')[0]));
  return new DatabaseStartError(
    `DATABASE_URL: no database answers at ${where} (${why}): start Postgres there, or fix DATABASE_URL`,
    'unreachable',
  );
}

/** host:port, database and user of a postgres URL, never its password. */
function describeUrl(url: string): { where: string; database: string; user: string } {
  try {
    const parsed = new URL(url);
    return {
      where: `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`,
      database: decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'postgres',
      user: decodeURIComponent(parsed.username) || 'postgres',
    };
  } catch {
    return { where: 'the host it names', database: '?', user: '?' };
  }
}

const hostOf = (where: string) => where.slice(0, where.lastIndexOf(':'));
const portOf = (where: string) => where.slice(where.lastIndexOf(':') + 1);
