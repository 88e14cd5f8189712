import { describeValue } from '../../lib/describe-value.ts';
import { canonicalAmount, parseMoney, toUnits } from '../../lib/money.ts';
import { isAbsent } from './optional-string.ts';
import { accept, refuse, type Parsed } from './parsed.ts';
import type { Report } from './record-reader.ts';
import type { BatchRow, FieldProblem } from './types.ts';

/**
 * A batch body's totals (InboundDirectCredit: the platform sends the credits in batches,
 * several times a day, `{TotalCount, TotalAmount, DirectCreditDetails: [record, …]}`): what the
 * batch says it holds, read leniently (an odd total never costs the batch its payments), and
 * checked against its records, whose `amount` the total adds up. A batch that does not add up
 * is stored with a warning, so reconciliation sees it.
 */

/** TotalCount lands in an `integer` column. */
const MAX_COUNT = 2_147_483_647;

export function readBatchTotals(
  body: Readonly<Record<string, unknown>>,
  rows: readonly Readonly<Record<string, string | null>>[],
  details: string,
  report: Report,
): BatchRow {
  const totalCount = readTotal(body.TotalCount, 'TotalCount', parseCount, report);
  const totalAmount = readTotal(body.TotalAmount, 'TotalAmount', parseMoney, report);
  if (totalCount !== null && totalCount !== rows.length) {
    warn(report, 'TotalCount', `is ${totalCount} but ${details} holds ${rows.length} records`);
  }
  if (totalAmount !== null) {
    // Exact: the amounts are money.ts' canonical text, at most 4 places (and required).
    const sum = rows.reduce((total, row) => total + toUnits(row.amount as string), 0n);
    if (sum !== toUnits(totalAmount)) {
      warn(
        report,
        'TotalAmount',
        `is ${totalAmount} but the records' amounts add up to ${canonicalAmount(sum)}`,
      );
    }
  }
  return { totalCount, totalAmount, recordCount: rows.length };
}

function readTotal<T>(
  value: unknown,
  path: string,
  parse: (value: unknown) => Parsed<T>,
  report: Report,
): T | null {
  if (isAbsent(value)) return null;
  const parsed = parse(value);
  if (parsed.ok) return parsed.value;
  warn(report, path, `${parsed.reason}; stored as null`);
  return null;
}

/** A count of records: a whole JSON number or a digit string, 0 to 2147483647. */
function parseCount(value: unknown): Parsed<number> {
  const count =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d{1,10}$/.test(value)
        ? Number(value)
        : Number.NaN;
  if (Number.isInteger(count) && count >= 0 && count <= MAX_COUNT) return accept(count);
  return refuse(`must be a whole number of records (got ${describeValue(value)})`);
}

function warn(report: Report, path: string, reason: string): void {
  report.warnings.add((): FieldProblem => ({ path, message: `${path} ${reason}` }));
}
