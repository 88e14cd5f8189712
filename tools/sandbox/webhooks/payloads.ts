import { randomUUID } from 'node:crypto';
import { randomInt, type Random } from '../core/random.ts';
import { fromCents } from '../core/money.ts';
import type { Fields, PaymentKind } from '../state/types.ts';

/**
 * Webhook bodies, one home for them all. First those the sandbox's own events send: every field
 * the interface lists, realistic defaults for what a test does not choose. `id` is unique
 * (core/ids.ts) and makes TransactionId, ReceiptNumber and EndToEndId unique too, since the
 * receiver deduplicates on them. Then the shape variants `simulate` sends (below).
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

/**
 * Shape variants, for `npm run sandbox -- simulate` (simulate/plan.ts): every event and every
 * shape the contract and the platform's own examples disagree on (docs/receiver-contract.md, "be
 * liberal"), each sent byte for byte as built here (CRLF, spacing and all). `key` makes each
 * body's business identifiers unique within a run and across runs with different seeds.
 */
export interface Variant {
  name: string;
  /** A modelled event's name, `unmodelled` (any event the receiver does not model) or `any`. */
  event: string;
  body(key: string, random: Random): string;
}

const crlf = (text: string) => text.replaceAll('\n', '\r\n');
const amount = (random: Random) => (randomInt(random, 1, 500_000) / 100).toFixed(2);
// A key is 12 digits, so every id stays a safe JSON integer (13 digits).
const numericId = (key: string, k: number) => Number(`${key}${k}`);

const rejection = (key: string, k: number, random: Random, dateTime: string) => ({
  id: k % 2 === 0 ? numericId(key, k) : String(numericId(key, k)),
  batchId: Number(key),
  dateTime,
  bsb: '802-985',
  accountNumber: '123123123',
  accountName: k === 2 ? null : 'ACME RECEIVABLES',
  transactionType: 'DE',
  amount: k === 1 ? `${amount(random)}00` : Number(amount(random)),
  lodgementRef: `INV ${k}`,
  remitterName: 'Test Test',
  reason: 'Unmatched Reconciliation Rule Receivable',
  status: 'Processed',
});

export const VALID_VARIANTS: readonly Variant[] = [
  {
    name: 'npp-iso-number-amount',
    event: 'NPPReceivePayment',
    body: (key, random) =>
      crlf(
        JSON.stringify(
          {
            TransactionId: `SIM${key}`,
            DateTime: '2024-03-05T09:41:07.5230000',
            RemitterName: 'JANE CITIZEN',
            Amount: Number(amount(random)),
            AccountNumber: '419001918',
            Bsb: '802-985',
            PaymentDescription: `INV-${key}`,
            EndToEndId: `E2E-${key}`,
            ReceiptNumber: numericId(key, 0),
          },
          null,
          2,
        ),
      ),
  },
  {
    name: 'npp-legacy-date-string-amount',
    event: 'NPPReceivePayment',
    body: (key, random) =>
      `{"TransactionId":"SIM${key}","DateTime":"20/10/2020 12:00:01 AM","RemitterName":"ABC XYZ","Amount":"${amount(random)}00","AccountName":"Test1","AccountNumber":"456213475","Bsb":"123-123","PayId":"test@test.io","EndToEndId":"NOTPROVIDED","ReceiptNumber":"${numericId(key, 1)}"}`,
  },
  {
    name: 'npp-nulls-and-empty-strings',
    event: 'NPPReceivePayment',
    body: (key) =>
      `{"TransactionId":"SIM${key}","DateTime":"","RemitterName":null,"Amount":"0.0100","AccountName":"","AccountNumber":null,"Bsb":"","PaymentDescription":"","PayId":null,"EndToEndId":"","USINumber":null,"ReceiptNumber":null,"RefundDetails":null}`,
  },
  {
    name: 'npp-unknown-fields',
    event: 'NPPReceivePayment',
    body: (key, random) =>
      `{"TransactionId":"SIM${key}","DateTime":"2024-01-31T23:59:59","Amount":${amount(random)},"USICreditorScheme":"ABN","USIScheme":"ABN","SettlementStatus":"Settled","Channel":{"Scheme":"Osko","Flags":["instant"]},"ReceiptNumber":"${numericId(key, 2)}"}`,
  },
  {
    name: 'npp-refund-details',
    event: 'NPPReceivePayment',
    body: (key) =>
      `{"TransactionId":"SIM${key}","DateTime":"15/04/2024 3:15:18 PM","Amount":"250.0000","ReceiptNumber":${numericId(key, 3)},"RefundDetails":{"InboundAmount":"250.0000","RefundAmount":100.25,"RefundId":${numericId(key, 4)}}}`,
  },
  {
    name: 'inbound-direct-credit-rejections-array',
    event: 'InboundDirectCreditRejections',
    body: (key, random) =>
      JSON.stringify(
        ['2023-08-11T14:19:16', '2023-08-11T14:19:17.5530000', '11/08/2023 2:19:18 pm']
          .slice(0, randomInt(random, 1, 3))
          .map((dateTime, k) => rejection(key, k, random, dateTime)),
        null,
        2,
      ),
  },
  {
    name: 'npp-credit-rejections-array',
    event: 'NPPCreditRejections',
    body: (key, random) =>
      JSON.stringify([0, 1].map((k) => rejection(key, k, random, '8/11/2023 12:31:45 PM'))),
  },
  {
    name: 'npp-credit-rejections-single-object',
    event: 'NPPCreditRejections',
    body: (key, random) =>
      crlf(JSON.stringify(rejection(key, 0, random, '2023-11-08T12:25:27'), null, 2)),
  },
  {
    name: 'unmodelled-event',
    event: 'unmodelled',
    body: (key, random) =>
      `{"PaymentAgreementId":"PA-${key}","Amount":"${amount(random)}00","DateTime":"2024-03-05T11:22:33","Status":"Settled"}`,
  },
];

/** Signed by the platform but refused by the receiver's schema (400, quarantined). */
export const MALFORMED_VARIANTS: readonly Variant[] = [
  {
    name: 'npp-amount-not-a-number',
    event: 'NPPReceivePayment',
    body: (key) => `{"TransactionId":"SIM${key}","DateTime":"2023-08-11T14:19:16","Amount":"ten"}`,
  },
  {
    name: 'npp-missing-transaction-id',
    event: 'NPPReceivePayment',
    body: (key) =>
      `{"DateTime":"2023-08-11T14:19:16","Amount":"42.0000","PaymentDescription":"${key}"}`,
  },
  {
    name: 'rejections-missing-id',
    event: 'InboundDirectCreditRejections',
    body: (key) => `[{"batchId":${numericId(key, 0)},"dateTime":"2023-08-11T14:19:16","amount":1}]`,
  },
  { name: 'not-json', event: 'any', body: (key) => `{"TransactionId":"SIM${key}",` },
];

export const DEFAULT_UNMODELLED_EVENT = 'NppReturn';
