import { createFindings } from './findings.ts';
import { isPlainObject, readRecord, rowTemplate, type RowOf, type Same } from './record-reader.ts';
import type { EventModel, NppPaymentRow, ParseOutcome, PayToPaymentRow } from './types.ts';

/**
 * NPPReceivePayment, field by field (PascalCase, as the interface document and the published
 * schema `event.receivePaymentWebhook` name them). Unknown fields stay in the raw body.
 */
export const PAYMENT_FIELDS = [
  { key: 'transactionId', from: ['TransactionId'], kind: 'identifier', required: true },
  { key: 'amount', from: ['Amount'], kind: 'money', required: true },
  { key: 'dateTime', from: ['DateTime'], kind: 'date-time' },
  { key: 'endToEndId', from: ['EndToEndId'], kind: 'text' },
  // An integer in the interface document, a digit string in the published examples.
  { key: 'receiptNumber', from: ['ReceiptNumber'], kind: 'identifier' },
  { key: 'payId', from: ['PayId'], kind: 'text' }, // the payee PayID the payer paid to
  { key: 'payIdName', from: ['PayIdName'], kind: 'text' },
  { key: 'remitterName', from: ['RemitterName'], kind: 'text' }, // the payer
  { key: 'bsb', from: ['Bsb'], kind: 'text' }, // the receiving account; SourceBsb is the payer's
  { key: 'accountNumber', from: ['AccountNumber'], kind: 'text' },
  { key: 'accountName', from: ['AccountName'], kind: 'text' },
  { key: 'sourceBsb', from: ['SourceBsb'], kind: 'text' },
  { key: 'sourceAccountNumber', from: ['SourceAccountNumber'], kind: 'text' },
  { key: 'sourceAccountName', from: ['SourceAccountName'], kind: 'text' },
  { key: 'remittanceInformation', from: ['PaymentDescription'], kind: 'text' },
  { key: 'creditorReferenceInformation', from: ['CreditorReferenceInformation'], kind: 'text' },
  { key: 'reconciliationRuleReference', from: ['ReconciliationRuleReference'], kind: 'text' },
  { key: 'categoryPurposeCode', from: ['CategoryPurposeCode'], kind: 'text' },
  { key: 'ultimateCreditorName', from: ['UltimateCreditorName'], kind: 'text' },
  { key: 'usiNumber', from: ['USINumber'], kind: 'text' },
  { key: 'usiCreditorScheme', from: ['USICreditorScheme', 'USIScheme'], kind: 'text' },
  { key: 'ledgerAccountNumber', from: ['LedgerAccountNumber'], kind: 'text' },
  { key: 'ledgerUniqueReference', from: ['LedgerUniqueReference'], kind: 'text' },
] as const;

/** RefundDetails (from the interface document); each part optional. */
const REFUND_FIELDS = [
  { key: 'refundInboundAmount', from: ['InboundAmount'], kind: 'money' },
  { key: 'refundAmount', from: ['RefundAmount'], kind: 'money' },
  { key: 'refundId', from: ['RefundId'], kind: 'identifier' },
] as const;

/** PayToReceivePayment's own fields (the PayTo report spells MmsId "MMSId"). */
const PAYTO_FIELDS = [
  ...PAYMENT_FIELDS,
  { key: 'mmsId', from: ['MmsId', 'MMSId'], kind: 'text' },
  { key: 'initiatingPartyName', from: ['InitiatingPartyName'], kind: 'text' },
  { key: 'nppInstructionId', from: ['NPPInstructionId'], kind: 'text' },
] as const;

type Refund = RowOf<(typeof REFUND_FIELDS)[number]>;
// Compile-time: the specs fill exactly the row each table stores.
const paymentRowMatches: Same<RowOf<(typeof PAYMENT_FIELDS)[number]> & Refund, NppPaymentRow> =
  true;
const payToRowMatches: Same<RowOf<(typeof PAYTO_FIELDS)[number]> & Refund, PayToPaymentRow> = true;
void [paymentRowMatches, payToRowMatches];

export const nppReceivePayment = paymentModel('NPPReceivePayment', 'npp-payment', PAYMENT_FIELDS);

/**
 * PayToReceivePayment: the same fields plus MmsId, InitiatingPartyName, NPPInstructionId. The
 * published schema marks the refund fields required on it; they are not (nothing is required
 * beyond TransactionId and Amount).
 */
export const payToReceivePayment = paymentModel(
  'PayToReceivePayment',
  'payto-payment',
  PAYTO_FIELDS,
);

function paymentModel(
  name: string,
  kind: 'npp-payment' | 'payto-payment',
  fields: typeof PAYMENT_FIELDS | typeof PAYTO_FIELDS,
): EventModel {
  // Every column of the row, refund's included (see rowTemplate).
  const template = rowTemplate(fields, REFUND_FIELDS);
  return Object.freeze({
    name,
    parse(input: unknown): ParseOutcome {
      const read = readPayment(input, fields, name, template);
      if (!read.ok) return read;
      // The compile-time checks above make these casts exact.
      const typed =
        kind === 'npp-payment'
          ? { kind, rows: [read.row as unknown as NppPaymentRow] as [NppPaymentRow] }
          : { kind, rows: [read.row as unknown as PayToPaymentRow] as [PayToPaymentRow] };
      return { ok: true, typed, warnings: read.warnings };
    },
  });
}

function readPayment(
  input: unknown,
  fields: typeof PAYMENT_FIELDS | typeof PAYTO_FIELDS,
  eventName: string,
  template: Readonly<Record<string, null>>,
) {
  const report = { problems: createFindings('problems'), warnings: createFindings('warnings') };
  if (!isPlainObject(input)) {
    const message = `The body must be a JSON object (one ${eventName} notification)`;
    return { ok: false as const, problems: [{ path: '', message }] };
  }
  // The refund's columns go into the same row: a spread copy of some thirty columns cost more
  // than reading them.
  const row = readRefund(input, report, readRecord(input, fields, '', report, { ...template }));
  if (report.problems.count > 0) return { ok: false as const, problems: report.problems.list() };
  return { ok: true as const, row, warnings: report.warnings.list() };
}

function readRefund(
  body: Record<string, unknown>,
  report: Parameters<typeof readRecord>[3],
  row: Record<string, string | null>,
) {
  const refund = body.RefundDetails;
  if (isPlainObject(refund)) return readRecord(refund, REFUND_FIELDS, 'RefundDetails', report, row);
  if (refund !== undefined && refund !== null) {
    report.warnings.add(() => ({
      path: 'RefundDetails',
      message: 'RefundDetails must be an object or null; its parts are stored as null',
    }));
  }
  row.refundInboundAmount = null;
  row.refundAmount = null;
  row.refundId = null;
  return row;
}
