/**
 * npm run quarantine -- <command>     (npm run quarantine -- --help)
 *
 * Lists, shows, re-drives and marks handled the deliveries the receiver refused and kept.
 */
import type { CommandDescription, OperatorIo } from '../lib/command-line/command-description.ts';
import { withOperatorDatabase } from '../lib/database/operator-database.ts';
import { quarantineCommand } from '../operations/index.ts';
import { loadOperatorConfig } from './config.ts';

export function command(io: OperatorIo): CommandDescription {
  return quarantineCommand({
    io,
    now: () => new Date(),
    withDatabase: (work) =>
      withOperatorDatabase(io, loadOperatorConfig, ({ database }) => work(database.db)),
  });
}
