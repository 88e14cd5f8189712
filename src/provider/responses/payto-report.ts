import { z } from 'zod';
import { parseMoney } from '../../events/money.ts';
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
  /** The receipt's `Transaction ID` (absent only when the row is unreadable). */
  transactionId: string | undefined;
  /** Canonical decimal string, when the amount reads as one. */
  amount: string | undefined;
  /** As sent: Sydney wall-clock time, no zone. */
  dateTime: string | undefined;
  /** Every column by its header name, as sent. */
  columns: Record<string, string>;
}

const normalise = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

const jsonShape = lenientObject({ ndeFileDetails: z.array(z.string()).optional() });

/** Rows of the report, whichever shape it came in. */
export function readPaytoReport(body: unknown, rawText: string): PaytoReceipt[] {
  if (body !== undefined) {
    const parsed = jsonShape.safeParse(body);
    const lines = parsed.success ? (parsed.data.ndeFileDetails ?? []) : [];
    return toReceipts(lines.flatMap((line) => parseCsv(line).slice(0, 1)));
  }
  return toReceipts(parseCsv(rawText));
}

function toReceipts(rows: string[][]): PaytoReceipt[] {
  const first = rows[0];
  const hasHeader = first?.some((cell) => normalise(cell) === 'transactionid') ?? false;
  const header = hasHeader && first ? first : [...PAYTO_COLUMNS];
  return (hasHeader ? rows.slice(1) : rows).map((row) => toReceipt(header, row));
}

function toReceipt(header: readonly string[], row: readonly string[]): PaytoReceipt {
  const columns: Record<string, string> = {};
  header.forEach((name, index) => {
    const value = row[index];
    if (value !== undefined) columns[name.trim()] = value.trim();
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
