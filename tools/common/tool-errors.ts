import { constants } from 'node:os';

/**
 * The two ways a tool stops short that the command line's errors (src/lib/command-line/errors.ts)
 * do not name, each with its exit code in tools/common/run-tool.ts.
 */

/**
 * What the tool proves could not be tried on this machine (nginx not to be had): the run is
 * skipped, neither passed nor failed; `message` says why.
 */
export class Skipped extends Error {
  override readonly name = 'Skipped';
}

/**
 * A signal stopped the run and what it started is cleaned up: the tool ends as a shell reports a
 * process ended by that signal (128 + its number: 130 for SIGINT, 143 for SIGTERM).
 */
export class Interrupted extends Error {
  override readonly name = 'Interrupted';
  constructor(readonly signal: 'SIGINT' | 'SIGTERM') {
    super(signal);
  }

  get exitCode(): number {
    return 128 + constants.signals[this.signal];
  }
}
