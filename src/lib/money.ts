import { describeValue } from './describe-value.ts';

/**
 * Money, the one home for it: reading an amount as the platform sends it (parseMoney), and
 * exact arithmetic on decimal text (an amount becomes a whole number of ten-thousandths in a
 * BigInt, is added or compared there, and goes back to text). Never a float: "0.1" + "0.2" must
 * be "0.3". Four places because that is the most any amount carries anywhere in the kit (the
 * receiver stores `numeric(19,4)`).
 */
const UNIT_PLACES = 4;

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

/**
 * Amounts arrive as JSON numbers (1000.12) or decimal strings ("10.0000"). Either becomes a
 * canonical decimal string: no leading zeros, no trailing fractional zeros, no "-0"
 * ("10.0000" -> "10", "010.50" -> "10.5", "0.0001" -> "0.0001").
 *
 * A leading minus is accepted. None of the modelled events should carry a negative amount, but
 * the contract refuses only an amount that is not a number, and refusing would quarantine a
 * genuine notification; storing the sign faithfully lets the ledger see it. No "+", exponent,
 * thousands separator, NaN or Infinity.
 *
 * Limits: at most 4 decimal places and 15 integer digits, which is exactly what Postgres
 * `numeric(19,4)` holds. More decimal places are refused, never rounded, unless the extra
 * digits are zeros ("10.00000" is exact).
 */
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;
const MAX_DECIMAL_PLACES = UNIT_PLACES;
const MAX_INTEGER_DIGITS = 15;
/**
 * JSON.parse has already turned a number into a double. Any decimal of at most 15 significant
 * digits survives that and `String(n)` unchanged (DBL_DIG), so within this limit the text we
 * see is what was sent; beyond it we could be storing a neighbour. This also refuses anything
 * beyond Number.MAX_SAFE_INTEGER (16 digits). Senders who need more digits send a string.
 */
const MAX_SIGNIFICANT_DIGITS_IN_A_NUMBER = 15;

const EXPECTED = 'must be a number or a decimal string with at most 4 decimal places';

/** An amount read, or why not: the shape of the receiver's field parsers (events/parsed.ts). */
export type ParsedAmount = { ok: true; value: string } | { ok: false; reason: string };

const accept = (value: string): ParsedAmount => ({ ok: true, value });
const refuse = (reason: string): ParsedAmount => ({ ok: false, reason });

interface Decimal {
  sign: '' | '-';
  /** No leading zeros ("0" for zero). */
  integer: string;
  /** No trailing zeros ("" for a whole amount). */
  fraction: string;
}

export function parseMoney(value: unknown): ParsedAmount {
  if (typeof value === 'number') return fromJsonNumber(value);
  const decimal = typeof value === 'string' ? readDecimal(value) : undefined;
  if (decimal === undefined) return refuse(`${EXPECTED} (got ${describeValue(value)})`);
  return withinLimits(decimal, value);
}

function fromJsonNumber(value: number): ParsedAmount {
  const text = String(value);
  // String() switches to exponent form below 1e-6 and from 1e21: neither is a 4-place amount.
  if (Number.isFinite(value) && /e/.test(text)) {
    return refuse(`is out of range for an amount (got the number ${text})`);
  }
  const decimal = Number.isFinite(value) ? readDecimal(text) : undefined;
  if (decimal === undefined) return refuse(`${EXPECTED} (got ${describeValue(value)})`);
  // Checked first so a 0.1 + 0.2 style artefact is reported as the extra places it shows.
  if (decimal.fraction.length > MAX_DECIMAL_PLACES) return tooManyPlaces(value);
  const significant = `${decimal.integer}${decimal.fraction}`.replace(/^0+/, '').length;
  if (significant > MAX_SIGNIFICANT_DIGITS_IN_A_NUMBER) {
    return refuse(
      `has more digits than a JSON number carries exactly (got the number ${text}); send it as a decimal string`,
    );
  }
  return withinLimits(decimal, value);
}

function withinLimits(decimal: Decimal, original: unknown): ParsedAmount {
  if (decimal.fraction.length > MAX_DECIMAL_PLACES) return tooManyPlaces(original);
  if (decimal.integer.length > MAX_INTEGER_DIGITS) {
    return refuse(
      `has more than ${MAX_INTEGER_DIGITS} digits before the decimal point (got ${describeValue(original)})`,
    );
  }
  const magnitude =
    decimal.fraction === '' ? decimal.integer : `${decimal.integer}.${decimal.fraction}`;
  return accept(magnitude === '0' ? '0' : `${decimal.sign}${magnitude}`);
}

function readDecimal(text: string): Decimal | undefined {
  const m = DECIMAL.exec(text);
  if (m === null) return undefined;
  const [, sign = '', integer = '', fraction = ''] = m;
  return {
    sign: sign === '-' ? '-' : '',
    integer: integer.replace(/^0+(?=\d)/, ''),
    fraction: fraction.replace(/0+$/, ''),
  };
}

function tooManyPlaces(original: unknown): ParsedAmount {
  return refuse(
    `has more than ${MAX_DECIMAL_PLACES} decimal places (got ${describeValue(original)}); it is refused rather than rounded`,
  );
}
