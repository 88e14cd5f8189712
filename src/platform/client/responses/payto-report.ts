import { CsvError, parse as parseCsv, type Options as CsvOptions } from 'csv-parse/sync';
import { z } from 'zod';
import { parseMoney } from '../../../lib/money.ts';
import { lenientObject } from './lenient.ts';

/**
 * The PayTo receivables report, in both published shapes: JSON whose `ndeFileDetails` holds one
 * CSV row per receipt (interface document), or CSV text with a header row (public reference).
 * Columns are matched by header name when there is a header (the published example row has one
 * column fewer than its header), else taken in the published order.
 */
const PAYTO_COLUMNS = [
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
      lines.map((line) => {
        const { records, unreadable } = readCsv(line);
        return unreadable === undefined ? { cells: records[0] ?? [], raw: line } : unreadable;
      }),
    );
  }
  const { records, unreadable } = readCsv(rawText);
  const rows: Row[] = records.map((cells) => ({ cells, raw: cells.join(',') }));
  if (unreadable) rows.push(unreadable);
  const header = records[0] ?? [];
  if (!header.some((cell) => normalise(cell) === 'transactionid')) {
    return {
      receipts: [],
      rows: rows.length,
      problems: rows.map(({ raw }, index) => ({
        row: index + 1,
        reason: 'the CSV answer has no header row naming Transaction ID',
        raw: raw.slice(0, RAW_LIMIT),
      })),
    };
  }
  return toReport(header, rows.slice(1));
}

/** A row as read: its cells, or why it could not be read (then it has no cells). */
type Row = { cells: readonly string[]; raw: string } | { unreadable: string; raw: string };

/**
 * RFC 4180 by csv-parse: records end at CRLF or LF (a lone CR is data), quoted fields may hold
 * commas, doubled quotes and line breaks; a quote inside an unquoted field is kept as data; rows
 * may have any number of cells (toReport judges that). The one thing that cannot be read is a
 * quote never closed: the text from there on is one unreadable row, the rows before it are kept.
 */
const CSV_OPTIONS: CsvOptions = {
  bom: true,
  record_delimiter: ['\r\n', '\n'],
  relax_quotes: true,
  relax_column_count: true,
  skip_empty_lines: true,
};

function readCsv(text: string): { records: string[][]; unreadable?: Row } {
  const records: string[][] = [];
  let readBytes = 0;
  try {
    parseCsv(text, {
      ...CSV_OPTIONS,
      on_record: (record: string[], { bytes }) => {
        records.push(record);
        readBytes = bytes;
        return record;
      },
    });
    return { records };
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const rest = Buffer.from(text, 'utf8').subarray(readBytes).toString('utf8');
    return {
      records,
      unreadable: { unreadable: error.message, raw: rest.replace(/^[\r\n]+/, '') },
    };
  }
}

function toReport(header: readonly string[], rows: readonly Row[]): PaytoReport {
  const receipts: PaytoReceipt[] = [];
  const problems: ReportRowProblem[] = [];
  const firstRowOf = new Map<string, number>();
  rows.forEach((read, index) => {
    const row = index + 1;
    const problem = (reason: string) =>
      problems.push({ row, reason, raw: read.raw.slice(0, RAW_LIMIT) });
    if ('unreadable' in read) return problem(`not readable as CSV: ${read.unreadable}`);
    const { cells } = read;
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
