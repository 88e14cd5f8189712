import { fromUnits, toUnits } from '../../../src/lib/money.ts';

/**
 * Amounts are exact: decimal text in, whole cents (a safe integer) inside, decimal text out.
 * Never a float: "0.1" + "0.2" must be "0.30". The exact conversion is src/lib/decimal-money.ts;
 * this is the sandbox's rule for what an amount may be (dollars and cents, 12 digits).
 */
export const AMOUNT_PATTERN = /^\d{1,12}(\.\d{1,2})?$/;

/** Ten-thousandths in a cent. */
const UNITS_PER_CENT = 100n;

export function toCents(text: string): number {
  if (!AMOUNT_PATTERN.test(text)) throw new RangeError(`not an amount: ${text}`);
  return Number(toUnits(text) / UNITS_PER_CENT);
}

/** Whole cents as "12.50" ("-0.05" below zero). */
export function fromCents(cents: number): string {
  // Whole cents have exactly two places: this never rounds, so it never answers undefined.
  return fromUnits(BigInt(cents) * UNITS_PER_CENT, 2)!;
}
