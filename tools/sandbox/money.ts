/**
 * Amounts are exact: decimal text in, whole cents (a safe integer) inside, decimal text out.
 * Never a float: "0.1" + "0.2" must be "0.30".
 */
export const AMOUNT_PATTERN = /^\d{1,12}(\.\d{1,2})?$/;

export function toCents(text: string): number {
  if (!AMOUNT_PATTERN.test(text)) throw new RangeError(`not an amount: ${text}`);
  const [whole = '0', fraction = ''] = text.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

export function fromCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
