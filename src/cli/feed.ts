import type { CommandDescription, OperatorIo } from '../lib/command-line/command-description.ts';
import { withOperatorDatabase } from '../lib/database/operator-database.ts';
import { feedCommand } from '../feed/index.ts';
import { loadOperatorConfig } from './config.ts';

/** `main.ts feed <command>`: the feed relay's operator commands, on the receiver's database. */
export function command(io: OperatorIo): CommandDescription {
  return feedCommand({
    io,
    withDatabase: (work) =>
      withOperatorDatabase(io, loadOperatorConfig, ({ database }) => work(database.db)),
  });
}
