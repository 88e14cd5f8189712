import { randomInt, type Random } from './random.ts';

/**
 * The bodies the simulated platform sends: every event and every shape the contract and the
 * platform's own examples disagree on (DESIGN.md, "be liberal"). `key` makes each body's
 * business identifiers unique within a run and across runs with different seeds.
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
