import { readFile } from 'node:fs/promises';
import type { OptionDescription } from '../../lib/command-line/command-description.ts';
import { UsageError } from '../../lib/command-line/errors.ts';
import { parseWebhookSecret } from '../../lib/webhook-secret.ts';
import { FEED_EVENT_TYPES } from '../../receiver/contract.ts';
import { parseTypeFilter } from '../endpoints/type-filter.ts';

/**
 * The options `endpoints add` and `endpoints update` share, read as the table's CHECKs allow
 * (and FEED_HTTP_*'s ranges, the same limits for the configured endpoint and the others), so a
 * value out of range is a usage error naming the option, never a constraint violation.
 */

/** An option's reader: a whole number from `min` to `max`. */
function wholeNumberIn(min: number, max: number) {
  return (value: string, flag: string): number => {
    const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
    if (n >= min && n <= max) return n;
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max} (got ${value})`);
  };
}

const perSecond = wholeNumberIn(1, 100_000);

/** An event-type filter option (`payment.*,quarantine.opened`): its entries, checked. */
export function typeFilterOption(flags: string): OptionDescription {
  return {
    flags,
    parse: (value, flag) => {
      const filter = parseTypeFilter(value, FEED_EVENT_TYPES);
      if ('problems' in filter) throw new UsageError(`${flag}: ${filter.problems.join('; ')}`);
      return filter.types;
    },
  };
}

/** The settings both commands take. */
export const SETTING_OPTIONS: readonly OptionDescription[] = [
  typeFilterOption('--types <list>'),
  { flags: '--credentials-file <path>' },
  {
    flags: '--rate <n/s>',
    parse: (value, flag) => perSecond(value.replace(/\/s$/, ''), flag),
  },
  { flags: '--timeout-ms <ms>', parse: wholeNumberIn(100, 120_000) },
  { flags: '--concurrency <n>', parse: wholeNumberIn(1, 1000) },
  { flags: '--max-age-ms <ms>', parse: wholeNumberIn(1000, 2_592_000_000) },
];

/** `--secret whsec_…`: checked, never echoed (the message names the option only). */
export const SECRET_OPTION: OptionDescription = {
  flags: '--secret <whsec>',
  parse: (value, flag) => {
    const key = parseWebhookSecret(value);
    if (typeof key === 'string') throw new UsageError(`${flag} ${key}`);
    return value;
  },
};

/**
 * A broker's password or token from `path` (never from the command line, where `ps` and the
 * shell's history would show it): the file's text without its final line break.
 */
export async function readCredentials(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`--credentials-file: cannot read ${path} (${code})`);
  }
  const credentials = text.replace(/\r?\n$/, '');
  if (credentials.trim() === '') throw new UsageError(`--credentials-file: ${path} is empty`);
  return credentials;
}
