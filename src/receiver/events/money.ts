import { describeValue } from './describe-value.ts';
import { accept, refuse, type Parsed } from './parsed.ts';

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
const MAX_DECIMAL_PLACES = 4;
const MAX_INTEGER_DIGITS = 15;
/**
 * JSON.parse has already turned a number into a double. Any decimal of at most 15 significant
 * digits survives that and `String(n)` unchanged (DBL_DIG), so within this limit the text we
 * see is what was sent; beyond it we could be storing a neighbour. This also refuses anything
 * beyond Number.MAX_SAFE_INTEGER (16 digits). Senders who need more digits send a string.
 */
const MAX_SIGNIFICANT_DIGITS_IN_A_NUMBER = 15;

const EXPECTED = 'must be a number or a decimal string with at most 4 decimal places';

interface Decimal {
  sign: '' | '-';
  /** No leading zeros ("0" for zero). */
  integer: string;
  /** No trailing zeros ("" for a whole amount). */
  fraction: string;
}

export function parseMoney(value: unknown): Parsed<string> {
  if (typeof value === 'number') return fromJsonNumber(value);
  const decimal = typeof value === 'string' ? readDecimal(value) : undefined;
  if (decimal === undefined) return refuse(`${EXPECTED} (got ${describeValue(value)})`);
  return withinLimits(decimal, value);
}

function fromJsonNumber(value: number): Parsed<string> {
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

function withinLimits(decimal: Decimal, original: unknown): Parsed<string> {
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

function tooManyPlaces(original: unknown): Parsed<never> {
  return refuse(
    `has more than ${MAX_DECIMAL_PLACES} decimal places (got ${describeValue(original)}); it is refused rather than rounded`,
  );
}
