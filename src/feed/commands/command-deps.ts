import type { CommandIo } from '../../lib/command-line/command-description.ts';
import type { Db } from '../../lib/database/database.ts';

/** What the feed's operator commands work with (src/feed/feed-command.ts hands them over). */
export interface OperatorDeps {
  io: CommandIo;
  /** Runs `work` on the receiver's database (the command line opens and closes it). */
  withDatabase: <T>(work: (db: Db) => Promise<T>) => Promise<T>;
}

/** The start of every usage line, and the width of the words column of the help. */
export const USAGE = 'Usage: npm run feed -- ';
export const WIDTH = 20;
