import type { Logger } from '../logger.ts';
import type pg from 'pg';
import { createDatabaseWithPool, type Db } from './database.ts';
import { checkDatabaseAnswers } from './database-start-error.ts';
import { resolveEmbeddedDataDir, startEmbeddedPostgres } from './embedded-postgres.ts';
import type { DatabaseConfig } from './settings.ts';

export interface OpenDatabase {
  db: Db;
  pool: pg.Pool;
  /** The database's URL (the embedded one's, when started), for components with their own pool. */
  url: string;
  /** Closes the pool, then stops the embedded Postgres if this process started one. */
  close(): Promise<void>;
}

/** `DATABASE_URL` when set; otherwise a real Postgres embedded under the project folder. */
export async function openDatabase(
  config: DatabaseConfig,
  logger: Logger,
  projectDir: string,
): Promise<OpenDatabase> {
  let url = config.databaseUrl;
  let stopEmbedded = async () => {};
  if (!url) {
    const { dir, relocated } = resolveEmbeddedDataDir(config.embeddedPostgres.dir, projectDir);
    if (relocated) {
      logger.warn(
        { dataDir: dir },
        'project folder is not reachable by the postgres user; embedded data kept elsewhere',
      );
    }
    const embedded = await startEmbeddedPostgres({
      dataDir: dir,
      port: config.embeddedPostgres.port,
      logger,
    });
    url = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const { db, pool } = createDatabaseWithPool({
    url,
    poolMax: config.databasePoolMax,
    connectionTimeoutMs: config.databaseConnectionTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    onIdleClientError: (error) => logger.warn({ err: error }, 'database connection lost'),
  });
  // DATABASE_URL's database must answer before anything else is tried: a missing or unreachable
  // one is one line naming the variable (database-start-error.ts), not the stack of the first
  // query. The embedded one was just started and answered.
  if (config.databaseUrl) {
    try {
      await checkDatabaseAnswers(db, url);
    } catch (error) {
      await db.destroy();
      throw error;
    }
  }
  return {
    db,
    pool,
    url,
    close: async () => {
      await db.destroy();
      await stopEmbedded();
    },
  };
}
