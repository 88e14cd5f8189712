import { randomUUID } from 'node:crypto';
import { fromCents } from '../money.ts';
import type { Fields, PaymentKind } from '../state/types.ts';

/**
 * Webhook bodies with every field the interface lists, realistic defaults for what a test does
 * not choose. `id` is unique (ids.ts) and makes TransactionId, ReceiptNumber and EndToEndId
 * unique too, since the receiver deduplicates on them.
 */

export interface PaymentInput {
  kind: PaymentKind;
  id: number;
  amountCents: number;
  /** Sydney wall-clock, `yyyy-MM-ddTHH:mm:ss`. */
  dateTime: string;
  /** Fields chosen by the caller (PascalCase for NPP and PayTo, camelCase for direct entry). */
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

/** InboundDirectCredit (direct entry): one record in the rejection records' shape. */
function directEntryFields(input: PaymentInput): Fields {
  return {
    ...rejectionRecord(input.id, input.amountCents, input.dateTime, {}),
    transactionType: 'DE',
    status: 'Processed',
    reason: '',
    ...input.chosen,
  };
}

export function paymentPayload(input: PaymentInput): {
  payload: Fields;
  paymentInitiationUid?: string;
} {
  if (input.kind === 'NPP') return { payload: nppFields(input) };
  if (input.kind === 'DirectEntry') return { payload: directEntryFields(input) };
  return { payload: payToFields(input), paymentInitiationUid: randomUUID() };
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
