/** Why a would-be signing key was refused; tests and start-up messages branch on `problem`. */
export type KeyFormatProblem =
  'unrecognised' | 'malformed' | 'private-key' | 'not-rsa' | 'too-small';

/** Messages describe what was wrong and never echo the key material itself. */
export class KeyFormatError extends Error {
  override readonly name = 'KeyFormatError';
  constructor(
    readonly problem: KeyFormatProblem,
    message: string,
  ) {
    super(message);
  }
}
