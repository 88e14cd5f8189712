import { createFindings } from './findings.ts';
import { isPlainObject, readRecord, type RowOf, type Same } from './record-reader.ts';
import type { CreditRejectionRow, EventModel, ParseOutcome } from './types.ts';

/**
 * One rejection record, camelCase, as in the interface document and the provider's published
 * schemas `event.InboundDirectCreditRejectionsWebhook` and `event.NppCreditRejectionsWebhook`
 * (the same fields). Unknown fields stay in the raw body.
 */
const REJECTION_FIELDS = [
  { key: 'rejectionId', from: ['id'], kind: 'identifier', required: true }, // 2650 in the spec
  { key: 'amount', from: ['amount'], kind: 'money', required: true },
  { key: 'batchId', from: ['batchId'], kind: 'identifier' },
  { key: 'dateTime', from: ['dateTime'], kind: 'date-time' },
  { key: 'transactionType', from: ['transactionType'], kind: 'text' }, // "DE" or "NPP"
  { key: 'transactionCode', from: ['transactionCode'], kind: 'text' },
  { key: 'status', from: ['status'], kind: 'text' },
  { key: 'rejectionReason', from: ['reason'], kind: 'text' },
  { key: 'bsb', from: ['bsb'], kind: 'text' }, // the payee's
  { key: 'accountNumber', from: ['accountNumber'], kind: 'text' },
  { key: 'accountName', from: ['accountName'], kind: 'text' },
  { key: 'payId', from: ['payId'], kind: 'text' },
  { key: 'payIdName', from: ['payIdName'], kind: 'text' },
  { key: 'reference', from: ['lodgementRef'], kind: 'text' }, // the payer's reference
  { key: 'endToEndId', from: ['endToEndId'], kind: 'text' },
  { key: 'remitterName', from: ['remitterName'], kind: 'text' }, // the payer
  { key: 'sourceBsb', from: ['sourceBsb'], kind: 'text' },
  { key: 'sourceAccountNumber', from: ['sourceAccountNumber'], kind: 'text' },
  { key: 'sourceAccountName', from: ['sourceAccountName'], kind: 'text' },
  { key: 'indicator', from: ['indicator'], kind: 'text' },
  { key: 'withholdingTaxAmount', from: ['withholdingTaxAmount'], kind: 'money' },
  { key: 'nameOfUserSupplyingFile', from: ['nameOfUserSupplyingFile'], kind: 'text' },
  { key: 'numberOfUserSupplyingFile', from: ['numberOfUserSupplyingFile'], kind: 'text' },
  { key: 'descriptionOfEntriesOnFile', from: ['descriptionOfEntriesOnFile'], kind: 'text' },
  { key: 'ledgerAccountNumber', from: ['ledgerAccountNumber'], kind: 'text' },
  { key: 'ledgerUniqueReference', from: ['ledgerUniqueReference'], kind: 'text' },
] as const;

// Compile-time: the specs fill exactly the row credit_rejections stores.
const rowMatches: Same<RowOf<(typeof REJECTION_FIELDS)[number]>, CreditRejectionRow> = true;
void rowMatches;

/**
 * InboundDirectCreditRejections is an array per contract and published spec. NPPCreditRejections
 * is an array per contract, but the provider's own published example is a single object, so
 * that model also takes one object as a batch of one (its problem paths then have no "[0]").
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
