import { createLogger } from '../lib/logger.ts';
import { EXIT_OK } from './exit-codes.ts';
import { parseOptions, type OperatorIo } from '../lib/command-options.ts';
import { withOperatorDatabase } from '../lib/database/operator-database.ts';
import { loadOperatorConfig } from './config.ts';

export const MIGRATE_USAGE = `usage: npm run migrate [-- --help]     (in the image: node dist/src/cli/main.js migrate)

Brings the database (DATABASE_URL, or the embedded Postgres) to the latest migration, the same
migrator the service runs on start (MIGRATE_ON_START), then exits. Run it as the owner role.

  --help   this help

Exit 0: the database is at the latest migration; 1: a migration failed or the database could
not be reached; 2: bad usage or configuration.`;

/** `main.ts migrate`: the same migrator the service runs on start, then exit. */
export async function run(io: OperatorIo): Promise<number> {
  if (!parseOptions(io, { help: { type: 'boolean' } }, MIGRATE_USAGE)) return EXIT_OK;
  return withOperatorDatabase(
    io,
    loadOperatorConfig,
    ({ logger }) => {
      logger.info('database is at the latest migration');
      return Promise.resolve(EXIT_OK);
    },
    // The migrations' progress is the command's output: on stdout, at LOG_LEVEL.
    { migrate: true, logger: (config) => createLogger(config.logLevel) },
  );
}
