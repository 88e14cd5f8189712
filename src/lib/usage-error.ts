/**
 * A command's words are off (an unknown option, a value out of range): the command line exits 2
 * (src/cli/exit-codes.ts). `help`, the command's usage, is printed after the message.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    readonly help?: string,
  ) {
    super(message);
  }
}
