import { createFindings } from './findings.ts';
import { PAYMENT_FIELDS, PAYTO_FIELDS, REFUND_DETAILS, REFUND_FIELDS } from './data-contract.ts';
import { isPlainObject, readRecord, rowTemplate } from './record-reader.ts';
import type { EventModel, NppPaymentRow, ParseOutcome, PayToPaymentRow } from './types.ts';

/**
 * NPPReceivePayment and PayToReceivePayment, field by field as data-contract.ts lists them
 * (PAYMENT_FIELDS, PAYTO_FIELDS, and RefundDetails' REFUND_FIELDS). Unknown fields stay in the
 * raw body.
 */
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
      // The row types are computed from these specs (types.ts), so these casts are exact.
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
  const refund = body[REFUND_DETAILS];
  if (isPlainObject(refund)) return readRecord(refund, REFUND_FIELDS, REFUND_DETAILS, report, row);
  if (refund !== undefined && refund !== null) {
    report.warnings.add(() => ({
      path: 'RefundDetails',
      message: 'RefundDetails must be an object or null; its parts are stored as null',
    }));
  }
  for (const field of REFUND_FIELDS) row[field.key] = null;
  return row;
}
