import { ConfigError, loadConfig } from '../lib/config.ts';
import { projectDir } from '../lib/project-dir.ts';
import { createLogger } from '../lib/logger.ts';
import { migrateToLatest } from '../lib/database/migrator.ts';
import { openToolDatabase } from '../lib/database/operator-database.ts';

/** `npm run migrate`: the same migrator the service runs on start, then exit. */
async function migrate(): Promise<void> {
  const config = loadConfig(process.env, { receivesDeliveries: false });
  const logger = createLogger(config.logLevel);
  // A receiver already running on the embedded default keeps its Postgres: use that one.
  const database = await openToolDatabase(config, logger, projectDir());
  try {
    await migrateToLatest(database.db, logger);
    logger.info('database is at the latest migration');
  } finally {
    await database.close();
  }
}

migrate().catch((error: unknown) => {
  const message =
    error instanceof ConfigError
      ? error.message
      : error instanceof Error
        ? error.stack
        : String(error);
  process.stderr.write(`migration failed: ${message}\n`);
  process.exit(1);
});
