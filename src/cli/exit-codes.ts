import { ConfigError } from '../lib/config/config-error.ts';
import { SchemaBehindError } from '../lib/database/migrator.ts';
import { UsageError } from '../lib/usage-error.ts';

/**
 * The command line's one exit-code policy (`src/cli/main.ts <command>`), for every command:
 *
 *   0  done
 *   1  a failure at run time: the work could not be done, or not all of it (the database or the
 *      platform unreachable, a run that stopped early, a row not found); running it again may help
 *   2  bad usage or configuration: the words of the call, a variable, the schema behind the
 *      release; nothing ran, and running it again unchanged will not help
 *
 * A command answers its code, or throws: a UsageError (src/lib/usage-error.ts) or a
 * configuration error (ConfigError, a database that lacks migrations) is 2, anything else 1.
 * src/cli/main.ts applies it; the modules' own command functions (provider, recover, prune,
 * feed, quarantine) answer the same codes.
 */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export type ExitCode = typeof EXIT_OK | typeof EXIT_FAILURE | typeof EXIT_USAGE;

/** A thrown error as the policy sees it: its exit code, and the text for stderr. */
export function failureOf(error: unknown, failedTo: string): { code: ExitCode; text: string } {
  if (error instanceof UsageError) {
    return {
      code: EXIT_USAGE,
      text: error.help ? `${error.message}\n\n${error.help}` : error.message,
    };
  }
  // A configuration fault names the variable and needs no stack trace.
  if (error instanceof ConfigError || error instanceof SchemaBehindError) {
    return { code: EXIT_USAGE, text: error.message };
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { code: EXIT_FAILURE, text: `${failedTo}: ${detail}` };
}
