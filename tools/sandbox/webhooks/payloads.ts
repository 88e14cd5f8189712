import { randomUUID } from 'node:crypto';
import { sampleRecord, samplePayload } from '../../../src/receiver/contract.ts';
import { randomInt, type Random } from '../core/random.ts';
import { fromCents } from '../core/money.ts';
import type { Fields, PaymentKind } from '../state/types.ts';

/**
 * Webhook bodies, one home for them all. First those the sandbox's own events send: the data
 * contract's sample record (src/receiver: every field of the event, each with its example),
 * with what the sandbox chooses put over it. `id` is unique (core/ids.ts) and makes
 * TransactionId, ReceiptNumber and EndToEndId unique too, since the receiver deduplicates on
 * them; the amount and date-time are the caller's; the payee is the sandbox's; and where the
 * platform sends a JSON number, so does the sandbox. Then the shape variants `simulate` sends
 * (below).
 */

export interface PaymentInput {
  kind: Exclude<PaymentKind, 'DirectEntry'>;
  id: number;
  amountCents: number;
  /** Sydney wall-clock, `yyyy-MM-ddTHH:mm:ss`. */
  dateTime: string;
  /** Fields chosen by the caller (PascalCase, as the payment's body names them). */
  chosen: Fields;
  /**
   * How much of the payment went straight back to the payer (a refund settled against it):
   * RefundDetails then names it, with a RefundId of the sandbox's. Absent: nothing went back.
   */
  refundCents?: number;
}

/** The account every sandbox payment is paid into (the contract's sample payee renamed). */
const DEFAULT_PAYEE = {
  AccountNumber: '419001918',
  AccountName: 'SANDBOX RECEIVABLES',
  Bsb: '802-985',
  PayId: 'payments@sandbox.example',
  PayIdName: 'Sandbox Receivables',
};

/** The sample record of a modelled event, as the sandbox's JSON (every example is text). */
const sample = (event: string, overrides: Fields): Fields =>
  sampleRecord(event, overrides) as Fields;

/** What NPPReceivePayment and PayToReceivePayment share: the sandbox's choices. */
function paymentOverrides(input: PaymentInput): Fields {
  return {
    TransactionId: `SBX${input.id}`,
    DateTime: input.dateTime,
    Amount: fromCents(input.amountCents),
    ...DEFAULT_PAYEE,
    PaymentDescription: `INV-${String(input.id).slice(-6)}`,
    EndToEndId: `E2E${input.id}`,
  };
}

/** What came in and what went back: by default the whole amount in, nothing back. */
const refundDetails = (input: PaymentInput): Fields => ({
  RefundDetails: {
    InboundAmount: fromCents(input.amountCents),
    RefundAmount: fromCents(input.refundCents ?? 0),
    RefundId: input.refundCents === undefined ? '' : `RF${input.id}`,
  },
});

/** NPPReceivePayment: every field of the contract plus RefundDetails; ReceiptNumber a JSON number. */
function nppFields(input: PaymentInput): Fields {
  return sample('NPPReceivePayment', {
    ...paymentOverrides(input),
    ReceiptNumber: input.id,
    ...input.chosen,
    ...refundDetails(input),
  });
}

/** PayToReceivePayment: NPPReceivePayment's fields plus MmsId, InitiatingPartyName, NPPInstructionId. */
function payToFields(input: PaymentInput): Fields {
  return sample('PayToReceivePayment', {
    ...paymentOverrides(input),
    ...refundDetails(input),
    MmsId: `MMS${input.id}`,
    NPPInstructionId: `PI${input.id}`,
    // The public reference sends PayTo receipt numbers as text.
    ReceiptNumber: String(input.id),
    ...input.chosen,
  });
}

/**
 * One InboundDirectCredit record (direct entry), every field of the contract's record, as the
 * public reference's example sends them: `TransactionId` 12 characters, `BatchId` text with
 * leading zeros, `AccountNumber` a JSON number, `Amount` a number with two decimals, and no
 * withholding tax. `id` is unique (ids.ts), and so are TransactionId (its base 36, 11
 * characters until the year 5000) and ReceiptNumber.
 */
export function directCreditRecord(
  id: number,
  amountCents: number,
  dateTime: string,
  batchId: string,
  chosen: Fields,
): Fields {
  return sample('InboundDirectCredit', {
    TransactionId: `D${id.toString(36).toUpperCase().padStart(11, '0')}`,
    // A JSON number, as the reference types it; two decimals survive JSON exactly.
    Amount: Number(fromCents(amountCents)),
    BatchId: batchId,
    DateTime: dateTime,
    Bsb: DEFAULT_PAYEE.Bsb,
    AccountNumber: Number(DEFAULT_PAYEE.AccountNumber),
    AccountName: DEFAULT_PAYEE.AccountName,
    LodgementRef: `INV-${String(id).slice(-6)}`,
    Indicator: '',
    WithholdingTaxAmount: 0,
    ReceiptNumber: String(id),
    ...chosen,
  });
}

/**
 * The InboundDirectCredit body: one object per batch, as the platform sends several times a day
 * (the contract's batch shape). The total is added exactly, never in floating point, and sent
 * as a JSON number like the records' amounts.
 */
export function directCreditBatch(records: readonly Fields[]): Fields {
  const batch = samplePayload('InboundDirectCredit', records) as Fields;
  return { ...batch, TotalAmount: Number(batch.TotalAmount) };
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

/**
 * One rejection record: every field of the contract, the id, batch number, amount and
 * withholding tax as JSON numbers (as the interface types them), rejected to the sandbox's payee.
 */
export function rejectionRecord(
  id: number,
  amountCents: number,
  dateTime: string,
  chosen: Fields,
): Fields {
  return sample('NPPCreditRejections', {
    id,
    // A JSON number, as the interface types it; two decimals survive JSON exactly.
    amount: Number(fromCents(amountCents)),
    batchId: Math.floor(id / 1000),
    dateTime,
    transactionType: 'NPP',
    status: 'Rejected',
    bsb: DEFAULT_PAYEE.Bsb,
    accountNumber: DEFAULT_PAYEE.AccountNumber,
    accountName: DEFAULT_PAYEE.AccountName,
    payId: DEFAULT_PAYEE.PayId,
    payIdName: DEFAULT_PAYEE.PayIdName,
    lodgementRef: `REF${String(id).slice(-6)}`,
    endToEndId: `E2E${id}`,
    indicator: '',
    withholdingTaxAmount: 0,
    ...chosen,
  });
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

/** The contract's sample payment with this notification's identifiers: valid as it stands. */
const samplePayment = (key: string, overrides: Fields): Fields =>
  sample('NPPReceivePayment', {
    TransactionId: `SIM${key}`,
    EndToEndId: `E2E-${key}`,
    PaymentDescription: `INV-${key}`,
    ...overrides,
  });

/** The contract's sample rejection, its id and amount in one of the shapes the platform sends. */
const rejection = (key: string, k: number, random: Random, dateTime: string) =>
  sample('NPPCreditRejections', {
    id: k % 2 === 0 ? numericId(key, k) : String(numericId(key, k)),
    amount: k === 1 ? `${amount(random)}00` : Number(amount(random)),
    batchId: Number(key),
    dateTime,
    endToEndId: `E2E-${key}-${k}`,
    lodgementRef: `INV ${k}`,
    ...(k === 2 && { accountName: null }),
  });

export const VALID_VARIANTS: readonly Variant[] = [
  {
    name: 'npp-iso-number-amount',
    event: 'NPPReceivePayment',
    body: (key, random) =>
      crlf(
        JSON.stringify(
          samplePayment(key, {
            DateTime: '2024-03-05T09:41:07.5230000',
            Amount: Number(amount(random)),
            ReceiptNumber: numericId(key, 0),
          }),
          null,
          2,
        ),
      ),
  },
  {
    // The platform's published legacy example, field for field: most fields absent.
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
      JSON.stringify({
        ...samplePayment(key, {
          DateTime: '2024-01-31T23:59:59',
          Amount: Number(amount(random)),
          USICreditorScheme: 'ABN',
          ReceiptNumber: String(numericId(key, 2)),
        }),
        USIScheme: 'ABN',
        SettlementStatus: 'Settled',
        Channel: { Scheme: 'Osko', Flags: ['instant'] },
      }),
  },
  {
    name: 'npp-refund-details',
    event: 'NPPReceivePayment',
    body: (key) =>
      JSON.stringify(
        samplePayment(key, {
          DateTime: '15/04/2024 3:15:18 PM',
          Amount: '250.0000',
          ReceiptNumber: numericId(key, 3),
          RefundDetails: {
            InboundAmount: '250.0000',
            RefundAmount: 100.25,
            RefundId: numericId(key, 4),
          },
        }),
      ),
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

/** The sample without one field: a required one, so the body is refused. */
const without = (record: Fields, name: string): Fields =>
  Object.fromEntries(Object.entries(record).filter(([field]) => field !== name));

/**
 * Signed by the platform but refused by the receiver's schema (400, quarantined): a valid
 * sample with one thing wrong, and a body that is not JSON at all.
 */
export const MALFORMED_VARIANTS: readonly Variant[] = [
  {
    name: 'npp-amount-not-a-number',
    event: 'NPPReceivePayment',
    body: (key) => JSON.stringify(samplePayment(key, { Amount: 'ten' })),
  },
  {
    name: 'npp-missing-transaction-id',
    event: 'NPPReceivePayment',
    body: (key) => JSON.stringify(without(samplePayment(key, {}), 'TransactionId')),
  },
  {
    name: 'rejections-missing-id',
    event: 'InboundDirectCreditRejections',
    body: (key) =>
      JSON.stringify(
        samplePayload('InboundDirectCreditRejections', [
          without(sample('InboundDirectCreditRejections', { batchId: numericId(key, 0) }), 'id'),
        ]),
      ),
  },
  { name: 'not-json', event: 'any', body: (key) => `{"TransactionId":"SIM${key}",` },
];

export const DEFAULT_UNMODELLED_EVENT = 'NppReturn';
