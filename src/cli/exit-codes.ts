import { ConfigError } from '../lib/config/config-error.ts';
import { DatabaseStartError } from '../lib/database/database-start-error.ts';
import { SchemaBehindError } from '../lib/database/migrator.ts';
import { NotDone, UsageError } from '../lib/command-line/errors.ts';

/**
 * The command line's one exit-code policy (`src/cli/main.ts <command>`), for every command:
 *
 *   0  done
 *   1  a failure at run time: the work could not be done, or not all of it (the database or the
 *      platform unreachable, a run that stopped early, a row not found); running it again may help
 *   2  bad usage or configuration: the words of the call, a variable, the schema behind the
 *      release, a DATABASE_URL naming a database that does not exist or credentials it refuses;
 *      nothing ran, and running it again unchanged will not help
 *
 * No command chooses a number: it returns (done; `serve` returns 'serving' and lives on until a
 * signal), or throws a UsageError (2), a configuration error (ConfigError, a database that lacks
 * migrations: 2), a NotDone (1, src/lib/command-line/errors.ts) or anything else (1). This file
 * alone turns that into the code; src/cli/main.ts alone exits with it.
 */
const EXIT_OK = 0;
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

type ExitCode = typeof EXIT_OK | typeof EXIT_FAILURE | typeof EXIT_USAGE;

/** A thrown error as the policy sees it: its exit code, and the text for stderr ('' for none). */
function failureOf(error: unknown, failedTo: string): { code: ExitCode; text: string } {
  if (error instanceof UsageError) return { code: EXIT_USAGE, text: error.text() };
  if (error instanceof NotDone) return { code: EXIT_FAILURE, text: error.text() };
  // A configuration fault names the variable and needs no stack trace.
  if (error instanceof ConfigError || error instanceof SchemaBehindError) {
    return { code: EXIT_USAGE, text: error.message };
  }
  // DATABASE_URL's database at start: one line; missing (2) or not answering (1).
  if (error instanceof DatabaseStartError) {
    return {
      code: error.kind === 'configuration' ? EXIT_USAGE : EXIT_FAILURE,
      text: error.message,
    };
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { code: EXIT_FAILURE, text: `${failedTo}: ${detail}` };
}

/**
 * The exit code of a command's run: 0 when it returned, 'serving' when it serves on, else the
 * code of what it threw, whose text goes to `err` (`failedTo` begins a failure's).
 */
export async function exitCodeOf(
  run: Promise<unknown>,
  failedTo: string,
  err: (text: string) => void,
): Promise<ExitCode | 'serving'> {
  try {
    return (await run) === 'serving' ? 'serving' : EXIT_OK;
  } catch (error) {
    const failure = failureOf(error, failedTo);
    if (failure.text !== '') err(failure.text);
    return failure.code;
  }
}
