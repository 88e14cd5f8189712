/**
 * What the event layer hands to storage. Models turn a parsed JSON body into these rows;
 * storage writes them without knowing any provider field names (each key is its column's name
 * in camelCase: `payIdName` is `pay_id_name`).
 *
 * Conventions shared by every row:
 * - money is a decimal string with up to 4 places ("10.5", "0.0001"), never a number;
 * - a provider date-time becomes `...Local`, Sydney wall-clock time as
 *   "YYYY-MM-DD HH:MM:SS[.ffffff]" (no zone: the provider sends none), with the
 *   original text kept in `...Text`;
 * - an optional field the provider sent as absent, null or "" is null, and so is one that
 *   could not be read (with a warning on the delivery).
 */

/** Every NPPReceivePayment field of the interface document, and RefundDetails' three parts. */
export interface NppPaymentRow {
  transactionId: string;
  amount: string;
  dateTimeLocal: string | null;
  dateTimeText: string | null;
  endToEndId: string | null;
  receiptNumber: string | null;
  payId: string | null;
  payIdName: string | null;
  remitterName: string | null;
  bsb: string | null;
  accountNumber: string | null;
  accountName: string | null;
  sourceBsb: string | null;
  sourceAccountNumber: string | null;
  sourceAccountName: string | null;
  /** PaymentDescription. */
  remittanceInformation: string | null;
  creditorReferenceInformation: string | null;
  reconciliationRuleReference: string | null;
  categoryPurposeCode: string | null;
  ultimateCreditorName: string | null;
  usiNumber: string | null;
  /** USICreditorScheme, or USIScheme as the published examples spell it. */
  usiCreditorScheme: string | null;
  ledgerAccountNumber: string | null;
  ledgerUniqueReference: string | null;
  refundInboundAmount: string | null;
  refundAmount: string | null;
  refundId: string | null;
}

/** PayToReceivePayment: the NPPReceivePayment fields and three of its own. */
export interface PayToPaymentRow extends NppPaymentRow {
  mmsId: string | null;
  initiatingPartyName: string | null;
  nppInstructionId: string | null;
}

/** Every field of the rejection record (column names in comments where they differ). */
export interface CreditRejectionRow {
  /** id */
  rejectionId: string;
  amount: string;
  batchId: string | null;
  dateTimeLocal: string | null;
  dateTimeText: string | null;
  transactionType: string | null;
  transactionCode: string | null;
  status: string | null;
  /** reason */
  rejectionReason: string | null;
  bsb: string | null;
  accountNumber: string | null;
  accountName: string | null;
  payId: string | null;
  payIdName: string | null;
  /** lodgementRef */
  reference: string | null;
  endToEndId: string | null;
  remitterName: string | null;
  sourceBsb: string | null;
  sourceAccountNumber: string | null;
  sourceAccountName: string | null;
  indicator: string | null;
  withholdingTaxAmount: string | null;
  nameOfUserSupplyingFile: string | null;
  numberOfUserSupplyingFile: string | null;
  descriptionOfEntriesOnFile: string | null;
  ledgerAccountNumber: string | null;
  ledgerUniqueReference: string | null;
}

/**
 * One InboundDirectCredit record (an element of the batch's `DirectCreditDetails`), every field
 * of the published record (PascalCase there; column names in comments where they differ).
 */
export interface DirectCreditRow {
  transactionId: string;
  amount: string;
  /** BatchId: text, leading zeros kept ("0000000212749"). */
  batchId: string | null;
  dateTimeLocal: string | null;
  dateTimeText: string | null;
  bsb: string | null;
  accountNumber: string | null;
  accountName: string | null;
  transactionCode: string | null;
  lodgementRef: string | null;
  remitterName: string | null;
  nameOfUserSupplyingFile: string | null;
  numberOfUserSupplyingFile: string | null;
  descriptionOfEntriesOnFile: string | null;
  /** Blank, W, X or Y (withholding tax), as sent. */
  indicator: string | null;
  withholdingTaxAmount: string | null;
  sourceBsb: string | null;
  sourceAccountNumber: string | null;
  receiptNumber: string | null;
}

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
