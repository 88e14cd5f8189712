import { createFindings } from './findings.ts';
import { REJECTION_FIELDS } from './data-contract.ts';
import { isPlainObject, readRecord } from './record-reader.ts';
import type { CreditRejectionRow, EventModel, ParseOutcome } from './types.ts';

/**
 * InboundDirectCreditRejections is an array per contract and published spec. NPPCreditRejections
 * is an array per contract, but the provider's own published example is a single object, so
 * that model also takes one object as a batch of one (its problem paths then have no "[0]").
 * Each record is read field by field as data-contract.ts lists them (REJECTION_FIELDS).
 */
export const inboundDirectCreditRejections = creditRejectionModel(
  'InboundDirectCreditRejections',
  false,
);
export const nppCreditRejections = creditRejectionModel('NPPCreditRejections', true);

function creditRejectionModel(name: string, acceptsSingleObject: boolean): EventModel {
  const shapeError = acceptsSingleObject
    ? 'The body must be a JSON array of rejection records, or a single record'
    : 'The body must be a JSON array of rejection records';
  return Object.freeze({
    name,
    parse(input: unknown): ParseOutcome {
      const report = { problems: createFindings('problems'), warnings: createFindings('warnings') };
      let rows: CreditRejectionRow[];
      if (acceptsSingleObject && isPlainObject(input)) {
        rows = [readRecord(input, REJECTION_FIELDS, '', report) as unknown as CreditRejectionRow];
      } else if (Array.isArray(input)) {
        // An empty array is zero rows: well formed, and the delivery is still stored.
        rows = readRecords(input, report);
      } else {
        return { ok: false, problems: [{ path: '', message: shapeError }] };
      }
      if (report.problems.count > 0) return { ok: false, problems: report.problems.list() };
      return {
        ok: true,
        typed: { kind: 'credit-rejections', rows },
        warnings: report.warnings.list(),
      };
    },
  });
}

function readRecords(
  records: readonly unknown[],
  report: Parameters<typeof readRecord>[3],
): CreditRejectionRow[] {
  const rows: CreditRejectionRow[] = [];
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index];
    if (!isPlainObject(record)) {
      report.problems.add(() => ({
        path: `[${index}]`,
        message: `[${index}] must be a rejection record (a JSON object)`,
      }));
      continue;
    }
    // Once the body is refused its rows are never used: only count what else is wrong.
    const row = readRecord(record, REJECTION_FIELDS, `[${index}]`, report);
    if (report.problems.count === 0) rows.push(row as unknown as CreditRejectionRow);
  }
  return rows;
}
