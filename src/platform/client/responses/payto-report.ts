import { z } from 'zod';
import { parseMoney } from '../../../receiver/index.ts';
import { parseCsv } from './csv.ts';
import { lenientObject } from './lenient.ts';

/**
 * The PayTo receivables report, in both published shapes: JSON whose `ndeFileDetails` holds one
 * CSV row per receipt (interface document), or CSV text with a header row (public reference).
 * Columns are matched by header name when there is a header (the published example row has one
 * column fewer than its header), else taken in the published order.
 */
export const PAYTO_COLUMNS = [
  'Transaction ID',
  'Batch Id',
  'DateTime',
  'BSB',
  'AccountNumber',
  'AccountName',
  'PayId',
  'PayId Name',
  'TransactionCode',
  'TransactionType',
  'Amount',
  'LodgementRef',
  'RemitterName',
  'Indicator',
  'WithholdingTaxAmount',
  'EndToEndId',
  'RespondBeforeDateTime',
  'NameOfUserSupplyingFile',
  'NumberOfUserSupplyingFile',
  'DescriptionOfEntriesOnFile',
  'SourceBsb',
  'SourceAccountNumber',
  'SourceAccountName',
  'CategoryPurposeCode',
  'CreditorReferenceInformation',
  'USINumber',
  'USIScheme',
  'UltimateCreditorName',
  'MMSId',
  'InitiatingPartyName',
  'NPPInstructionId',
  'ReceiptNumber',
] as const;

export interface PaytoReceipt {
  /** The receipt's `Transaction ID`. */
  transactionId: string;
  /** Canonical decimal string, when the amount reads as one. */
  amount: string | undefined;
  /** As sent: Sydney wall-clock time, no zone. */
  dateTime: string | undefined;
  /** Every column by its header name, as sent. */
  columns: Record<string, string>;
}

/** A row that could not be read: reported with its reason and raw text, never guessed at. */
export interface ReportRowProblem {
  /** 1-based, counting data rows only. */
  row: number;
  reason: string;
  /** The row as sent, cut to `RAW_LIMIT` characters. */
  raw: string;
}

export interface PaytoReport {
  receipts: PaytoReceipt[];
  problems: ReportRowProblem[];
  /** Data rows in the answer, readable or not (what `take` counts). */
  rows: number;
}

const RAW_LIMIT = 500;

const normalise = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

const jsonShape = lenientObject({ ndeFileDetails: z.array(z.string()).optional() });

/**
 * Rows of the report, whichever shape it came in: JSON rows are in the published column order
 * (the interface shows no header); CSV text is read by its header's names. A row with more or
 * fewer cells than the columns, without a Transaction ID, or repeating an earlier row's
 * Transaction ID is a problem, not a receipt: mapping it column by column would be a guess.
 */
export function readPaytoReport(body: unknown, rawText: string): PaytoReport {
  if (body !== undefined) {
    const parsed = jsonShape.safeParse(body);
    const lines = parsed.success ? (parsed.data.ndeFileDetails ?? []) : [];
    return toReport(
      [...PAYTO_COLUMNS],
      lines.map((line) => ({ cells: parseCsv(line)[0] ?? [], raw: line })),
    );
  }
  const records = parseCsv(rawText);
  const header = records[0] ?? [];
  if (!header.some((cell) => normalise(cell) === 'transactionid')) {
    return {
      receipts: [],
      rows: records.length,
      problems: records.map((cells, index) => ({
        row: index + 1,
        reason: 'the CSV answer has no header row naming Transaction ID',
        raw: cells.join(',').slice(0, RAW_LIMIT),
      })),
    };
  }
  return toReport(
    header,
    records.slice(1).map((cells) => ({ cells, raw: cells.join(',') })),
  );
}

function toReport(
  header: readonly string[],
  rows: readonly { cells: readonly string[]; raw: string }[],
): PaytoReport {
  const receipts: PaytoReceipt[] = [];
  const problems: ReportRowProblem[] = [];
  const firstRowOf = new Map<string, number>();
  rows.forEach(({ cells, raw }, index) => {
    const row = index + 1;
    const problem = (reason: string) =>
      problems.push({ row, reason, raw: raw.slice(0, RAW_LIMIT) });
    if (cells.length !== header.length) {
      return problem(`${cells.length} cells where the header has ${header.length} columns`);
    }
    const receipt = toReceipt(header, cells);
    if (receipt.transactionId === undefined) return problem('no Transaction ID');
    const earlier = firstRowOf.get(receipt.transactionId);
    if (earlier !== undefined) return problem(`repeats the Transaction ID of row ${earlier}`);
    firstRowOf.set(receipt.transactionId, row);
    receipts.push(receipt as PaytoReceipt);
  });
  return { receipts, problems, rows: rows.length };
}

function toReceipt(header: readonly string[], row: readonly string[]) {
  const columns: Record<string, string> = {};
  header.forEach((name, index) => {
    columns[name.trim()] = (row[index] ?? '').trim();
  });
  const byName = (name: string) => {
    const key = Object.keys(columns).find((k) => normalise(k) === normalise(name));
    const value = key === undefined ? undefined : columns[key];
    return value === '' ? undefined : value;
  };
  const amount = byName('Amount');
  const parsedAmount = amount === undefined ? undefined : parseMoney(amount);
  return {
    transactionId: byName('Transaction ID'),
    amount: parsedAmount?.ok ? parsedAmount.value : undefined,
    dateTime: byName('DateTime'),
    columns,
  };
}
