import { EXIT_OK, EXIT_USAGE } from './exit-codes.ts';
import type { OperatorIo } from '../lib/command-options.ts';
import { withOperatorDatabase } from '../lib/database/operator-database.ts';
import { loadOperatorConfig } from './config.ts';
import { FEED_HELP, runFeedCommand } from '../feed/index.ts';

/** `main.ts feed <command>`: the feed relay's operator commands (see --help). */
export async function run(io: OperatorIo): Promise<number> {
  const [command] = io.argv;
  if (command === undefined || command === '--help' || command === '-h') {
    io.out(FEED_HELP.trimEnd());
    return command === undefined ? EXIT_USAGE : EXIT_OK;
  }
  return withOperatorDatabase(io, loadOperatorConfig, ({ database }) =>
    runFeedCommand(database.db, io.argv, io.out, io.err),
  );
}
