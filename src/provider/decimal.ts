/**
 * Exact arithmetic on decimal strings for money checks: amounts as whole ten-thousandths in a
 * BigInt (the receiver stores at most 4 decimal places). Never a float.
 */
const SCALE = 4;

export function toUnits(amount: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,4}))?$/.exec(amount.trim());
  if (!match) throw new Error(`not a decimal amount with at most ${SCALE} places: ${amount}`);
  const [, sign, whole = '0', fraction = ''] = match;
  const units = BigInt(whole) * 10n ** BigInt(SCALE) + BigInt(fraction.padEnd(SCALE, '0'));
  return sign === '-' ? -units : units;
}

/** Units back to text with exactly `places` decimals; undefined when that would round. */
export function fromUnits(units: bigint, places = 2): string | undefined {
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  const divisor = 10n ** BigInt(SCALE - places);
  if (magnitude % divisor !== 0n) return undefined;
  const scaled = (magnitude / divisor).toString().padStart(places + 1, '0');
  const text = places === 0 ? scaled : `${scaled.slice(0, -places)}.${scaled.slice(-places)}`;
  return negative ? `-${text}` : text;
}
