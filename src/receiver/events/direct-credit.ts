import { describeValue } from '../../lib/describe-value.ts';
import { createFindings } from './findings.ts';
import { canonicalAmount, parseMoney, toUnits } from '../../lib/money.ts';
import { isAbsent } from './optional-string.ts';
import { accept, refuse, type Parsed } from './parsed.ts';
import { DIRECT_CREDIT_DETAILS, DIRECT_CREDIT_FIELDS } from './data-contract.ts';
import { isPlainObject, readRecord, type Report } from './record-reader.ts';
import type {
  DirectCreditBatchRow,
  DirectCreditRow,
  EventModel,
  FieldProblem,
  ParseOutcome,
} from './types.ts';

/**
 * InboundDirectCredit: money in over the direct-entry (BECS) rail. The platform sends the
 * credits in batches, several times a day, one object per batch:
 * `{TotalCount, TotalAmount, DirectCreditDetails: [record, …]}`. Each record is read field by
 * field as data-contract.ts lists them (DIRECT_CREDIT_FIELDS). Unknown fields stay in the raw
 * body.
 */
const DETAILS = DIRECT_CREDIT_DETAILS;
/** TotalCount lands in an `integer` column. */
const MAX_COUNT = 2_147_483_647;

export const inboundDirectCredit: EventModel = Object.freeze({
  name: 'InboundDirectCredit',
  parse(input: unknown): ParseOutcome {
    if (!isPlainObject(input)) {
      return { ok: false, problems: [{ path: '', message: SHAPE }] };
    }
    const details = input[DETAILS];
    if (!Array.isArray(details)) {
      const got = details === undefined ? 'it is missing' : `got ${describeValue(details)}`;
      return {
        ok: false,
        problems: [
          { path: DETAILS, message: `${DETAILS} must be a JSON array of records (${got})` },
        ],
      };
    }
    const report = { problems: createFindings('problems'), warnings: createFindings('warnings') };
    // An empty array is zero records: well formed, and the delivery (and its batch) is stored.
    const rows = readRecords(details, report);
    if (report.problems.count > 0) return { ok: false, problems: report.problems.list() };
    const batch = readBatch(input, rows, report);
    return {
      ok: true,
      typed: { kind: 'direct-credits', rows, batch },
      warnings: report.warnings.list(),
    };
  },
});

const SHAPE = `The body must be a JSON object (one InboundDirectCredit batch: TotalCount, TotalAmount, ${DETAILS})`;

function readRecords(records: readonly unknown[], report: Report): DirectCreditRow[] {
  const rows: DirectCreditRow[] = [];
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index];
    const at = `${DETAILS}[${index}]`;
    if (!isPlainObject(record)) {
      report.problems.add(() => ({
        path: at,
        message: `${at} must be a direct-credit record (a JSON object)`,
      }));
      continue;
    }
    // Once the body is refused its rows are never used: only count what else is wrong.
    const row = readRecord(record, DIRECT_CREDIT_FIELDS, at, report);
    if (report.problems.count === 0) rows.push(row as unknown as DirectCreditRow);
  }
  return rows;
}

/**
 * TotalCount and TotalAmount, read leniently (an odd total never costs the batch its payments),
 * and checked against the records: a batch that does not add up is stored with a warning, so
 * reconciliation sees it.
 */
function readBatch(
  body: Readonly<Record<string, unknown>>,
  rows: readonly DirectCreditRow[],
  report: Report,
): DirectCreditBatchRow {
  const totalCount = readTotal(body.TotalCount, 'TotalCount', parseCount, report);
  const totalAmount = readTotal(body.TotalAmount, 'TotalAmount', parseMoney, report);
  if (totalCount !== null && totalCount !== rows.length) {
    warn(report, 'TotalCount', `is ${totalCount} but ${DETAILS} holds ${rows.length} records`);
  }
  if (totalAmount !== null) {
    // Exact: the amounts are money.ts' canonical text, at most 4 places.
    const sum = rows.reduce((total, row) => total + toUnits(row.amount), 0n);
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
