import { randomUUID } from 'node:crypto';
import { fromCents } from '../core/money.ts';
import type { Fields, PaymentKind } from '../state/types.ts';

/**
 * Webhook bodies with every field the interface lists, realistic defaults for what a test does
 * not choose. `id` is unique (ids.ts) and makes TransactionId, ReceiptNumber and EndToEndId
 * unique too, since the receiver deduplicates on them.
 */

export interface PaymentInput {
  kind: Exclude<PaymentKind, 'DirectEntry'>;
  id: number;
  amountCents: number;
  /** Sydney wall-clock, `yyyy-MM-ddTHH:mm:ss`. */
  dateTime: string;
  /** Fields chosen by the caller (PascalCase, as the payment's body names them). */
  chosen: Fields;
}

const DEFAULT_PAYEE = {
  AccountNumber: '419001918',
  AccountName: 'SANDBOX RECEIVABLES',
  Bsb: '802-985',
  PayId: 'payments@sandbox.example',
  PayIdName: 'Sandbox Receivables',
};

/** NPPReceivePayment: the 23 fields of the interface plus RefundDetails. */
function nppFields(input: PaymentInput): Fields {
  const amount = fromCents(input.amountCents);
  return {
    TransactionId: `SBX${input.id}`,
    DateTime: input.dateTime,
    Amount: amount,
    ...DEFAULT_PAYEE,
    RemitterName: 'JANE CITIZEN',
    SourceBsb: '062-000',
    SourceAccountNumber: '12345678',
    SourceAccountName: 'JANE CITIZEN',
    PaymentDescription: `INV-${String(input.id).slice(-6)}`,
    EndToEndId: `E2E${input.id}`,
    CreditorReferenceInformation: '',
    ReconciliationRuleReference: '',
    CategoryPurposeCode: 'PAYM',
    UltimateCreditorName: '',
    USINumber: '',
    USICreditorScheme: '',
    LedgerAccountNumber: '',
    LedgerUniqueReference: '',
    ReceiptNumber: input.id,
    ...input.chosen,
    RefundDetails: { InboundAmount: amount, RefundAmount: '0.00', RefundId: '' },
  };
}

/** PayToReceivePayment: NPPReceivePayment plus MmsId, InitiatingPartyName, NPPInstructionId. */
function payToFields(input: PaymentInput): Fields {
  return {
    ...nppFields({ ...input, chosen: {} }),
    MmsId: `MMS${input.id}`,
    InitiatingPartyName: 'SANDBOX MERCHANT',
    NPPInstructionId: `PI${input.id}`,
    // The public reference sends PayTo receipt numbers as text.
    ReceiptNumber: String(input.id),
    ...input.chosen,
  };
}

/**
 * One InboundDirectCredit record (direct entry), every field of the public reference's record,
 * as its example sends them: `TransactionId` 12 characters, `BatchId` text with leading zeros,
 * `AccountNumber` a JSON number, `Amount` a number with two decimals. `id` is unique (ids.ts),
 * and so are TransactionId (its base 36, 11 characters until the year 5000) and ReceiptNumber.
 */
export function directCreditRecord(
  id: number,
  amountCents: number,
  dateTime: string,
  batchId: string,
  chosen: Fields,
): Fields {
  return {
    TransactionId: `D${id.toString(36).toUpperCase().padStart(11, '0')}`,
    BatchId: batchId,
    DateTime: dateTime,
    Bsb: '802-985',
    AccountNumber: Number(DEFAULT_PAYEE.AccountNumber),
    AccountName: DEFAULT_PAYEE.AccountName,
    TransactionCode: '50',
    // A JSON number, as the reference types it; two decimals survive JSON exactly.
    Amount: Number(fromCents(amountCents)),
    LodgementRef: `INV-${String(id).slice(-6)}`,
    RemitterName: 'JOHN PAYER',
    NameOfUserSupplyingFile: 'SANDBOX BANK',
    NumberOfUserSupplyingFile: '123456',
    DescriptionOfEntriesOnFile: 'PAYMENTS',
    Indicator: '',
    WithholdingTaxAmount: 0,
    SourceBsb: '062-000',
    SourceAccountNumber: '87654321',
    ReceiptNumber: String(id),
    ...chosen,
  };
}

/**
 * The InboundDirectCredit body: one object per batch, as the platform sends several times a day.
 * The totals are added in cents, never in floating point.
 */
export function directCreditBatch(records: readonly { record: Fields; amountCents: number }[]) {
  const totalCents = records.reduce((total, r) => total + r.amountCents, 0);
  return {
    TotalCount: records.length,
    TotalAmount: Number(fromCents(totalCents)),
    DirectCreditDetails: records.map((r) => r.record),
  } satisfies Fields;
}

/** A direct-entry batch number: 13 digits with leading zeros, as the reference shows it. */
export function directCreditBatchId(id: number): string {
  return String(id % 10_000_000).padStart(13, '0');
}

/** NPPReceivePayment and PayToReceivePayment (InboundDirectCredit is a batch: see above). */
export function paymentPayload(input: PaymentInput): {
  payload: Fields;
  paymentInitiationUid?: string;
} {
  if (input.kind === 'PayTo') {
    return { payload: payToFields(input), paymentInitiationUid: randomUUID() };
  }
  return { payload: nppFields(input) };
}

/** One rejection record: all 26 fields of the interface. */
export function rejectionRecord(
  id: number,
  amountCents: number,
  dateTime: string,
  chosen: Fields,
): Fields {
  return {
    id,
    batchId: Math.floor(id / 1000),
    dateTime,
    transactionType: 'NPP',
    transactionCode: '50',
    status: 'Rejected',
    reason: 'Unmatched Reconciliation Rule Receivable',
    // A JSON number, as the interface types it; two decimals survive JSON exactly.
    amount: Number(fromCents(amountCents)),
    bsb: '802-985',
    accountNumber: '419001918',
    accountName: 'SANDBOX RECEIVABLES',
    payId: '',
    payIdName: '',
    lodgementRef: `REF${String(id).slice(-6)}`,
    endToEndId: `E2E${id}`,
    remitterName: 'JOHN PAYER',
    sourceBsb: '062-000',
    sourceAccountNumber: '87654321',
    sourceAccountName: 'JOHN PAYER',
    indicator: '',
    withholdingTaxAmount: 0,
    nameOfUserSupplyingFile: 'SANDBOX BANK',
    numberOfUserSupplyingFile: '123456',
    descriptionOfEntriesOnFile: 'PAYMENTS',
    ledgerAccountNumber: '',
    ledgerUniqueReference: '',
    ...chosen,
  };
}
