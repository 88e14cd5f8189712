/**
 * npm run quarantine -- <command>     (npm run quarantine -- --help)
 *
 * Lists, shows, re-drives and marks handled the deliveries the receiver refused and kept.
 */
import { ConfigError, loadConfig } from '../lib/config.ts';
import { createLogger } from '../lib/logger.ts';
import { QUARANTINE_HELP, runQuarantineCommand } from '../operations/index.ts';
import { migrateToLatest } from '../lib/database/migrator.ts';
import { openToolDatabase } from '../lib/database/operator-database.ts';
import { runWithProcessIo } from './process-io.ts';

runWithProcessIo(async (io) => {
  const [command] = io.argv;
  if (command === undefined || command === '--help' || command === 'help') {
    io.out(QUARANTINE_HELP);
    return command === undefined ? 2 : 0;
  }
  let config;
  try {
    // An operator command: it never receives deliveries, so it needs no webhook secret.
    config = loadConfig(io.env, { receivesDeliveries: false });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(error.message);
    return 2;
  }
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const database = await openToolDatabase(config, logger, io.projectDir);
  try {
    await migrateToLatest(database.db, logger);
    return await runQuarantineCommand(database.db, io.argv, {
      out: io.out,
      err: io.err,
      now: () => new Date(),
    });
  } finally {
    await database.close();
  }
});
