import type { Payment } from '../state/types.ts';
import { TAKE_DEFAULT, type ReportQuery } from '../validation/report-schema.ts';

/** The public reference's columns, in its order, and the payload field each comes from. */
const PAYTO_COLUMNS: readonly (readonly [header: string, field: string])[] = [
  ['Transaction ID', 'TransactionId'],
  ['Batch Id', ''],
  ['DateTime', 'DateTime'],
  ['BSB', 'Bsb'],
  ['AccountNumber', 'AccountNumber'],
  ['AccountName', 'AccountName'],
  ['PayId', 'PayId'],
  ['PayId Name', 'PayIdName'],
  ['TransactionCode', ''],
  ['TransactionType', ''],
  ['Amount', 'Amount'],
  ['LodgementRef', 'PaymentDescription'],
  ['RemitterName', 'RemitterName'],
  ['Indicator', ''],
  ['WithholdingTaxAmount', ''],
  ['EndToEndId', 'EndToEndId'],
  ['RespondBeforeDateTime', ''],
  ['NameOfUserSupplyingFile', ''],
  ['NumberOfUserSupplyingFile', ''],
  ['DescriptionOfEntriesOnFile', ''],
  ['SourceBsb', 'SourceBsb'],
  ['SourceAccountNumber', 'SourceAccountNumber'],
  ['SourceAccountName', 'SourceAccountName'],
  ['CategoryPurposeCode', 'CategoryPurposeCode'],
  ['CreditorReferenceInformation', 'CreditorReferenceInformation'],
  ['USINumber', 'USINumber'],
  ['USIScheme', 'USICreditorScheme'],
  ['UltimateCreditorName', 'UltimateCreditorName'],
  ['MMSId', 'MmsId'],
  ['InitiatingPartyName', 'InitiatingPartyName'],
  ['NPPInstructionId', 'NPPInstructionId'],
  ['ReceiptNumber', 'ReceiptNumber'],
];

const FIXED: Record<string, string> = { TransactionType: 'NPP', TransactionCode: '50' };

export const REPORT_HEADER: readonly string[] = PAYTO_COLUMNS.map(([header]) => header);

/** A receipt's values, in the columns' order. */
export function reportRecord(payment: Payment): unknown[] {
  return PAYTO_COLUMNS.map(([header, field]) =>
    field === '' ? (FIXED[header] ?? '') : payment.payload[field],
  );
}

/**
 * The PayTo receipts of the range, oldest first, then `skip` and `take`. Without endDate the
 * range runs from `date` to the end of that Sydney day; on the current day the report is
 * therefore cumulative: a later request sees everything an earlier one saw, and what came since.
 */
export function selectPayToReceipts(payments: readonly Payment[], query: ReportQuery): Payment[] {
  const end = query.endDate ?? `${query.date.slice(0, 8)}235959`;
  const matches = payments.filter((p) => {
    const f = p.payload;
    return (
      p.kind === 'PayTo' &&
      p.stamp >= query.date &&
      p.stamp <= end &&
      (query.accountNumber === undefined || f.AccountNumber === query.accountNumber) &&
      (query.payId === undefined || String(f.PayId).toLowerCase() === query.payId.toLowerCase()) &&
      (query.payIdName === undefined || f.PayIdName === query.payIdName) &&
      (query.clientUniqueId === undefined || f.LedgerUniqueReference === query.clientUniqueId) &&
      (query.transactionType === undefined || query.transactionType === 'NPP') &&
      (query.transactionCode === undefined || query.transactionCode === FIXED.TransactionCode)
    );
  });
  // Stable order (time, then id), so consecutive pages neither skip nor repeat a row.
  matches.sort(
    (a, b) => a.stamp.localeCompare(b.stamp) || a.transactionId.localeCompare(b.transactionId),
  );
  const skip = query.skip ?? 0;
  return matches.slice(skip, skip + (query.take ?? TAKE_DEFAULT));
}
