/**
 * Exact arithmetic on money as decimal text, the one home for it: an amount becomes a whole
 * number of ten-thousandths in a BigInt, is added or compared there, and goes back to text.
 * Never a float: "0.1" + "0.2" must be "0.3". Four places because that is the most any amount
 * carries anywhere in the kit (the receiver stores `numeric(19,4)`).
 */
export const UNIT_PLACES = 4;

/** An amount ("12.5", "-0.0001", " 3 ") as ten-thousandths; throws on anything else. */
export function toUnits(amount: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,4}))?$/.exec(amount.trim());
  if (!match) throw new Error(`not a decimal amount with at most ${UNIT_PLACES} places: ${amount}`);
  const [, sign, whole = '0', fraction = ''] = match;
  const units =
    BigInt(whole) * 10n ** BigInt(UNIT_PLACES) + BigInt(fraction.padEnd(UNIT_PLACES, '0'));
  return sign === '-' ? -units : units;
}

/**
 * Units back to text with exactly `places` decimals (0 to 4: "12.50" for places 2), or
 * undefined when that would round: a caller that needs whole cents must say so, not lose them.
 */
export function fromUnits(units: bigint, places: number): string | undefined {
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  const divisor = 10n ** BigInt(UNIT_PLACES - places);
  if (magnitude % divisor !== 0n) return undefined;
  const scaled = (magnitude / divisor).toString().padStart(places + 1, '0');
  const text = places === 0 ? scaled : `${scaled.slice(0, -places)}.${scaled.slice(-places)}`;
  return negative ? `-${text}` : text;
}

/**
 * Units back to the shortest exact text, the receiver's canonical form of an amount: no
 * trailing fractional zeros and no "." for a whole amount ("30", "10.5", "-0.0001").
 */
export function canonicalAmount(units: bigint): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(UNIT_PLACES + 1, '0');
  const whole = digits.slice(0, -UNIT_PLACES);
  const fraction = digits.slice(-UNIT_PLACES).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/**
 * An amount for a person to read in a message: two decimals ("20.00", "0.50"), more only when
 * cents would round it ("0.0050"): a message never shows money other than it is.
 */
export function moneyText(amount: string | bigint): string {
  const units = typeof amount === 'bigint' ? amount : toUnits(amount);
  return fromUnits(units, 2) ?? fromUnits(units, UNIT_PLACES) ?? String(units);
}
