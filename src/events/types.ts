/**
 * What the event layer hands to storage. Schemas turn a parsed JSON body into these rows;
 * storage writes them without knowing any provider field names.
 *
 * Conventions shared by every row:
 * - money is a decimal string with up to 4 places ("10.5", "0.0001"), never a number;
 * - a provider date-time becomes `...Local`, Sydney wall-clock time as
 *   "YYYY-MM-DD HH:MM:SS[.ffffff]" (no zone: the provider sends none), with the
 *   original text kept in `...Text`;
 * - optional strings that the provider sent as absent, null or "" are null.
 */

export interface NppPaymentRow {
  transactionId: string;
  endToEndId: string | null;
  amount: string;
  dateTimeLocal: string | null;
  dateTimeText: string | null;
  receiptNumber: string | null;
  payId: string | null;
  remitterName: string | null;
  bsb: string | null;
  accountNumber: string | null;
  remittanceInformation: string | null;
  refundInboundAmount: string | null;
  refundAmount: string | null;
  refundId: string | null;
}

export interface CreditRejectionRow {
  rejectionId: string;
  batchId: string | null;
  dateTimeLocal: string | null;
  dateTimeText: string | null;
  transactionType: string | null;
  amount: string;
  bsb: string | null;
  accountNumber: string | null;
  accountName: string | null;
  reference: string | null;
  remitterName: string | null;
  rejectionReason: string | null;
}

/** One field-level problem, as returned in a 400 answer's `errors`. */
export interface FieldProblem {
  /** JSON path into the body, e.g. "Amount" or "[2].id"; "" for the body itself. */
  path: string;
  message: string;
}

export type TypedRows =
  | { kind: 'npp-payment'; rows: [NppPaymentRow] }
  | { kind: 'credit-rejections'; rows: CreditRejectionRow[] }
  | { kind: 'unmodelled'; rows: [] };

export type ParseOutcome = { ok: true; typed: TypedRows } | { ok: false; problems: FieldProblem[] };

/** A modelled event: its canonical name and how to turn a parsed JSON body into rows. */
export interface EventModel {
  name: string;
  parse(body: unknown): ParseOutcome;
}
