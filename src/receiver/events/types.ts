import type {
  DIRECT_CREDIT_FIELDS,
  PAYMENT_FIELDS,
  PAYTO_FIELDS,
  REFUND_FIELDS,
  REJECTION_FIELDS,
  RowOf,
} from './data-contract.ts';

/**
 * What the event layer hands to storage. Models turn a parsed JSON body into these rows;
 * storage writes them without knowing any provider field names (each key is its column's name
 * in camelCase: `payIdName` is `pay_id_name`). The row types are computed from the field specs
 * of data-contract.ts, which also states the conventions every row shares (money as a decimal
 * string, a date-time as `...Local` and `...Text`, null for an absent or unreadable optional).
 */

type Refund = (typeof REFUND_FIELDS)[number];

/** Every NPPReceivePayment field of the interface document, and RefundDetails' three parts. */
export type NppPaymentRow = RowOf<(typeof PAYMENT_FIELDS)[number] | Refund>;

/** PayToReceivePayment: the NPPReceivePayment fields and three of its own. */
export type PayToPaymentRow = RowOf<(typeof PAYTO_FIELDS)[number] | Refund>;

/** Every field of the rejection record. */
export type CreditRejectionRow = RowOf<(typeof REJECTION_FIELDS)[number]>;

/**
 * One InboundDirectCredit record (an element of the batch's `DirectCreditDetails`), every field
 * of the published record.
 */
export type DirectCreditRow = RowOf<(typeof DIRECT_CREDIT_FIELDS)[number]>;

/** The batch around the records: what the platform says it holds, and what it does hold. */
export interface DirectCreditBatchRow {
  /** TotalCount as sent (null when absent or unreadable). */
  totalCount: number | null;
  /** TotalAmount, money like any amount (null when absent or unreadable). */
  totalAmount: string | null;
  /** How many records DirectCreditDetails holds. */
  recordCount: number;
}

/** One field-level problem (a 400 answer's `errors`) or warning (kept with the delivery). */
export interface FieldProblem {
  /** JSON path into the body, e.g. "Amount" or "[2].id"; "" for the body itself. */
  path: string;
  message: string;
}

export type TypedRows =
  | { kind: 'npp-payment'; rows: [NppPaymentRow] }
  | { kind: 'payto-payment'; rows: [PayToPaymentRow] }
  | { kind: 'credit-rejections'; rows: CreditRejectionRow[] }
  | { kind: 'direct-credits'; rows: DirectCreditRow[]; batch: DirectCreditBatchRow }
  | { kind: 'unmodelled'; rows: [] };

export type ParseOutcome =
  | {
      ok: true;
      typed: TypedRows;
      /** Optional fields stored as null (or read with a caveat); at most MAX_LISTED and a count. */
      warnings: FieldProblem[];
    }
  | { ok: false; problems: FieldProblem[] };

/** A modelled event: its canonical name and how to turn a parsed JSON body into rows. */
export interface EventModel {
  name: string;
  parse(body: unknown): ParseOutcome;
}
