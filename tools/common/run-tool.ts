import type {
  CommandDescription,
  CommandIo,
} from '../../src/lib/command-line/command-description.ts';
import { NotDone, UsageError } from '../../src/lib/command-line/errors.ts';
import { runCommand } from '../../src/lib/command-line/run-command.ts';
import { Interrupted, Skipped } from './tool-errors.ts';

/**
 * Every tool's exit-code policy, the command line's (src/cli/exit-codes.ts) and two of its own
 * (tools/common/tool-errors.ts):
 *
 *   0  done
 *   1  not done (NotDone: answers that differ, a delivery lost, a key that does not verify, a
 *      time limit passed) or a failure at run time (anything else thrown, shown after `failedTo`)
 *   2  bad usage (UsageError: the words of the call, a bad setting; nothing ran)
 *   3  skipped (Skipped: what the tool proves could not be tried on this machine)
 *   130, 143  stopped by SIGINT, SIGTERM (Interrupted, once cleaned up: tools/common/abandonable.ts)
 *
 * A tool's modules return or throw; this file alone turns that into a code.
 */
export function toolFailure(error: unknown, failedTo: string): { code: number; text: string } {
  if (error instanceof UsageError) return { code: 2, text: error.text() };
  if (error instanceof NotDone) return { code: 1, text: error.text() };
  if (error instanceof Skipped) return { code: 3, text: `SKIPPED: ${error.message}` };
  // The tool said why when it began to clean up.
  if (error instanceof Interrupted) return { code: error.exitCode, text: '' };
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { code: 1, text: `${failedTo}: ${detail}` };
}

/** The process's stdout and stderr, a line at a time: what a tool writes to. */
export const toolIo: CommandIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/** The exit code of a tool's `work`: 0 when it returned, else its failure's, whose text goes to `err`. */
export async function toolExitCode(
  work: Promise<unknown>,
  failedTo: string,
  err: (text: string) => void,
): Promise<number> {
  try {
    await work;
    return 0;
  } catch (error) {
    const failure = toolFailure(error, failedTo);
    if (failure.text !== '') err(failure.text);
    return failure.code;
  }
}

/**
 * Runs the tool `description` describes on the process's arguments (-h, --help and help
 * <command> as every command has them: src/lib/command-line/), then exits the process with its
 * code: the one place a tool exits.
 */
export async function runTool(description: CommandDescription, failedTo: string): Promise<never> {
  process.exit(
    await toolExitCode(
      runCommand(description, process.argv.slice(2), toolIo),
      failedTo,
      toolIo.err,
    ),
  );
}
