import { UsageError } from './errors.ts';

/** An option's reader: a whole number from 1 to `max`, else a UsageError naming the option. */
export function wholeNumber(max: number): (value: string, flag: string) => number {
  return (value, flag) => {
    const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
    if (n >= 1 && n <= max) return n;
    throw new UsageError(`${flag} must be a whole number from 1 to ${max} (got ${value})`);
  };
}
