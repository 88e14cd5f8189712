import { ConfigError, loadConfig } from '../lib/config.ts';
import { FEED_HELP, runFeedCommand } from '../feed/index.ts';
import { createLogger } from '../lib/logger.ts';
import { projectDir } from '../lib/project-dir.ts';
import { migrateToLatest } from '../lib/database/migrator.ts';
import { openToolDatabase } from '../lib/database/operator-database.ts';

/** `npm run feed -- <command>`: the feed relay's operator commands (see --help). */
async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.length === 0 || args[0] === '--help' || args[0] === '-h') {
    process.stdout.write(FEED_HELP);
    return args.length === 0 ? 2 : 0;
  }
  // An operator command: it never receives deliveries, so it needs no webhook secret.
  const config = loadConfig(process.env, { receivesDeliveries: false });
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  // A receiver already running on the embedded default keeps its Postgres: use that one.
  const database = await openToolDatabase(config, logger, projectDir());
  try {
    await migrateToLatest(database.db, logger);
    return await runFeedCommand(
      database.pool,
      args,
      (line) => process.stdout.write(`${line}\n`),
      (line) => process.stderr.write(`${line}\n`),
    );
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof ConfigError ? error.message : String(error);
    process.stderr.write(`feed command failed: ${message}\n`);
    process.exit(1);
  },
);
