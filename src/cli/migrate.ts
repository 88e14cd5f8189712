import { createLogger } from '../lib/logger.ts';
import type { CommandDescription, OperatorIo } from '../lib/command-line/command-description.ts';
import { withOperatorDatabase } from '../lib/database/operator-database.ts';
import { loadOperatorConfig } from './config.ts';

const MIGRATE_USAGE = `usage: npm run migrate [-- --help]     (in the image: node dist/src/cli/main.js migrate)

Brings the database (DATABASE_URL, or the embedded Postgres) to the latest migration, the same
migrator the service runs on start (MIGRATE_ON_START), then exits. Run it as the owner role.

  --help   this help

Exit 0: the database is at the latest migration; 1: a migration failed or the database could
not be reached; 2: bad usage or configuration.`;

/** `main.ts migrate`: the same migrator the service runs on start, then exit. */
export function command(io: OperatorIo): CommandDescription {
  return {
    name: 'migrate',
    help: MIGRATE_USAGE,
    run: () =>
      withOperatorDatabase(
        io,
        loadOperatorConfig,
        ({ logger }) => {
          logger.info('database is at the latest migration');
          return Promise.resolve();
        },
        // The migrations' progress is the command's output: on stdout, at LOG_LEVEL.
        { migrate: true, logger: (config) => createLogger(config.logLevel) },
      ),
  };
}
