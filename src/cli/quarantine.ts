/**
 * npm run quarantine -- <command>     (npm run quarantine -- --help)
 *
 * Lists, shows, re-drives and marks handled the deliveries the receiver refused and kept.
 */
import { EXIT_OK, EXIT_USAGE } from './exit-codes.ts';
import type { OperatorIo } from '../lib/command-options.ts';
import { withOperatorDatabase } from '../lib/database/operator-database.ts';
import { loadOperatorConfig } from './config.ts';
import { QUARANTINE_HELP, runQuarantineCommand } from '../operations/index.ts';

export async function run(io: OperatorIo): Promise<number> {
  const [command] = io.argv;
  if (command === undefined || command === '--help' || command === 'help') {
    io.out(QUARANTINE_HELP);
    return command === undefined ? EXIT_USAGE : EXIT_OK;
  }
  return withOperatorDatabase(io, loadOperatorConfig, ({ database }) =>
    runQuarantineCommand(database.db, io.argv, {
      out: io.out,
      err: io.err,
      now: () => new Date(),
    }),
  );
}
