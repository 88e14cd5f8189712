/**
 * The two ways a command says it did not do what it was asked, each with one exit code in the
 * policy of whoever runs it (src/cli/exit-codes.ts for the command line, tools/common/run-tool.ts
 * for the tools); a command never chooses a number itself.
 */

/**
 * The words of the call are off (an unknown option, a value out of range, a missing argument):
 * nothing ran. `help`, the command's help, is printed after the message; the command-line
 * scaffold fills it in with the help of the command that was running when it is left out, and
 * '' means none (the message says it all).
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    readonly help?: string,
  ) {
    super(message);
  }

  /** What stderr shows: the message, then the help after a blank line. */
  text(): string {
    return this.help ? `${this.message}\n\n${this.help}` : this.message;
  }
}

/**
 * The command ran, but what it was for is not done (a row not found, a run that stopped before
 * the end, a refund still in doubt): running it again, later or after the step the message
 * names, is the way on. The message goes to stderr, or `report` as JSON when there is one; an
 * empty message with no report adds nothing to what the command already printed.
 */
export class NotDone extends Error {
  override readonly name = 'NotDone';
  constructor(
    message = '',
    readonly report?: Record<string, unknown>,
  ) {
    super(message);
  }

  /** What stderr shows: the report as JSON, else the message. */
  text(): string {
    return this.report === undefined ? this.message : JSON.stringify(this.report, null, 2);
  }
}
