import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { ConfigLoader } from '../config/load-settings.ts';
import type { OperatorIo } from '../command-line/command-description.ts';
import { createLogger, type Logger } from '../logger.ts';
import { createDatabaseWithPool } from './database.ts';
import { resolveEmbeddedDataDir } from './embedded-postgres.ts';
import { assertMigrated, migrateToLatest } from './migrator.ts';
import { openDatabase, type OpenDatabase } from './open-database.ts';
import type { DatabaseConfig } from './settings.ts';

/**
 * The receiver's database for an operator command (migrate, feed, quarantine, provider, recover,
 * prune, export-quarantine): DATABASE_URL when set; otherwise the embedded Postgres, reusing the
 * one a running receiver started (a second start on the same data folder would fail) or starting
 * it. Every command but `migrate` needs the schema this release knows and never migrates it
 * itself (it may run as a role that must not, and a migration is a step the operator takes on
 * purpose): a database behind throws a SchemaBehindError (exit 2, naming `npm run migrate`).
 */
export async function openToolDatabase(
  config: DatabaseConfig,
  logger: Logger,
  projectDir: string,
  options: { migrating?: boolean } = {},
): Promise<Pick<OpenDatabase, 'db' | 'pool' | 'close'>> {
  const database =
    (config.databaseUrl ? undefined : await connectToRunningEmbedded(config, projectDir)) ??
    (await openDatabase(config, logger, projectDir));
  if (options.migrating) return database;
  try {
    await assertMigrated(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

export interface OperatorDatabase<C> {
  config: C;
  logger: Logger;
  database: Awaited<ReturnType<typeof openToolDatabase>>;
}

/**
 * Runs `work` on the receiver's database (DATABASE_URL, or the embedded Postgres of a receiver
 * running here), closed afterwards. The configuration is what `loadConfig` reads from the
 * environment (src/cli/config.ts composes it; an operator command receives no deliveries, so it
 * needs no webhook secret); a bad one throws a ConfigError. Logs go to stderr at LOG_LEVEL
 * (default warn), so that stdout holds only the command's output.
 * `migrate`: the `migrate` command alone brings the schema to the latest; for the others a
 * database behind is refused (see openToolDatabase).
 */
export async function withOperatorDatabase<C extends DatabaseConfig, T>(
  io: Pick<OperatorIo, 'env' | 'projectDir'>,
  loadConfig: ConfigLoader<C>,
  work: (opened: OperatorDatabase<C>) => Promise<T>,
  options: { migrate?: boolean; logger?: (config: C) => Logger } = {},
): Promise<T> {
  const config = loadConfig(io.env);
  const logger =
    options.logger?.(config) ?? createLogger(io.env.LOG_LEVEL ?? 'warn', process.stderr);
  const migrating = options.migrate ?? false;
  const database = await openToolDatabase(config, logger, io.projectDir, { migrating });
  try {
    if (migrating) await migrateToLatest(database.db, logger);
    return await work({ config, logger, database });
  } finally {
    await database.close();
  }
}

async function connectToRunningEmbedded(config: DatabaseConfig, projectDir: string) {
  const { dir } = resolveEmbeddedDataDir(config.embeddedPostgres.dir, projectDir);
  let password: string;
  try {
    password = readFileSync(path.join(dir, 'password'), 'utf8').trim();
  } catch {
    return undefined; // never initialised here: nothing can be running
  }
  const url = `postgres://postgres:${encodeURIComponent(password)}@localhost:${config.embeddedPostgres.port}/postgres`;
  const { db, pool } = createDatabaseWithPool({ url, poolMax: 2, connectionTimeoutMs: 2000 });
  try {
    // The project's schema is there (src/lib knows no module's tables: plain SQL).
    await sql`SELECT id FROM quarantined_deliveries LIMIT 1`.execute(db);
    return { db, pool, close: () => db.destroy() };
  } catch {
    await db.destroy();
    return undefined;
  }
}
