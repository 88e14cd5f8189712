import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './usage-error.ts';

/**
 * What the operator commands (migrate, feed, quarantine, prune, recover) do the same way: read
 * their options and say who holds a lease they could not take. Their database:
 * withOperatorDatabase (database/operator-database.ts). Exit codes: src/cli/exit-codes.ts.
 */
export interface OperatorIo {
  argv: readonly string[];
  env: Record<string, string | undefined>;
  /** A line for stdout (the command's result). */
  out: (text: string) => void;
  /** A line for stderr (progress, problems). */
  err: (text: string) => void;
  projectDir: string;
  now?: () => number;
}

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;
type Values<O extends OptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true }>
>['values'];

/**
 * The command's options (`help` among them), or undefined once --help was asked for and `usage`
 * printed. Anything else on the command line is a UsageError (shown with `usage`).
 */
export function parseOptions<const O extends OptionsConfig>(
  io: Pick<OperatorIo, 'argv' | 'out'>,
  options: O,
  usage: string,
): Values<O> | undefined {
  let values: Values<O>;
  try {
    values = parseArgs({ args: [...io.argv], options, strict: true }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), usage);
  }
  if ((values as { help?: unknown }).help === true) {
    io.out(usage);
    return undefined;
  }
  return values;
}

/** A whole number 1..max, undefined when absent; otherwise a UsageError (shown with `usage`). */
export function wholeNumber(
  value: string | undefined,
  name: string,
  max: number,
  usage: string,
): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (n >= 1 && n <= max) return n;
  throw new UsageError(`--${name} must be a whole number from 1 to ${max} (got ${value})`, usage);
}

/** Why a run did not start: another holds its lease (until when, if known). */
export function leaseHeld(
  what: string,
  outcome: { holder: string | undefined; expiresAt: Date | undefined },
): string {
  const until = outcome.expiresAt ? ` until ${outcome.expiresAt.toISOString()}` : '';
  return `another ${what} is running (${outcome.holder ?? 'another instance'} holds the lease${until}); try again shortly`;
}
