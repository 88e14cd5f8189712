/**
 * Writes the synthetic captured deliveries in test/fixtures/captured/ (format:
 * docs/captured-fixtures.md), one JSON file per case below, signed the way the platform signs.
 *
 *   npx tsx scripts/make-captured-fixtures.ts
 *
 * Output is deterministic (fixed Webhookids, fixed capturedAt, and RSA PKCS#1 v1.5 signatures
 * are deterministic), so a second run changes nothing. Files whose `source` is not "synthetic"
 * (real captures) are never touched; a synthetic file whose case is gone is removed.
 *
 * The signing key is test/fixtures/keys/captured-sender.{private,public}.pem: a TEST-ONLY
 * RSA-2048 pair made by this script on its first run and committed. It signs nothing real.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { bodyField } from '../src/capture/capture-body.ts';
import {
  serialiseCapturedDelivery,
  type CapturedDelivery,
} from '../src/capture/captured-delivery.ts';
import type { ExpectedAnswer, RowTable } from '../src/capture/expected-answer.ts';
import { publicKeyAsProviderHex, signBody } from '../test/support/signing.ts';

const CAPTURED_DIR = new URL('../test/fixtures/captured/', import.meta.url);
const PRIVATE_KEY_FILE = new URL(
  '../test/fixtures/keys/captured-sender.private.pem',
  import.meta.url,
);
const PUBLIC_KEY_FILE = new URL(
  '../test/fixtures/keys/captured-sender.public.pem',
  import.meta.url,
);
const CAPTURED_AT = '2026-11-22T01:00:00.000Z';
const JSON_UTF8 = 'application/json; charset=utf-8';

type Table = RowTable;
type Expected = ExpectedAnswer;

interface Case {
  /** The file name, without `.json`. */
  name: string;
  description: string;
  eventName: string;
  body: string | Buffer;
  /** Default `application/json; charset=utf-8`. */
  contentType?: string;
  /** Default: a fixed id derived from the case name; null sends no Webhookid header. */
  webhookId?: string | null;
  /** Sign these bytes instead of the body: the body was altered after signing. */
  signedBody?: string;
  /** Send the base64 folded at 76 columns, each fold become a space (see foldSignature). */
  foldSignature?: boolean;
  expected: Expected;
}

const NO_ROWS: Record<Table, number> = {
  webhook_deliveries: 0,
  npp_payments: 0,
  payto_payments: 0,
  credit_rejections: 0,
  conflicts: 0,
  quarantined_deliveries: 0,
};

function stored(typed: Partial<Record<Table, number>>, modelled = true): Expected {
  const rows = { ...NO_ROWS, webhook_deliveries: 1, ...typed };
  return { status: 200, outcome: 'stored', modelled, rows };
}

function quarantined(errorPaths: string[]): Expected {
  const rows = { ...NO_ROWS, quarantined_deliveries: 1 };
  return { status: 400, outcome: 'quarantined', errorPaths, rows };
}

const UNAUTHORISED: Expected = { status: 401, outcome: 'unauthorised', rows: NO_ROWS };

/** Newtonsoft.Json `Formatting.Indented` on Windows: two spaces and CRLF line ends. */
const crlf = (text: string): string => text.replaceAll('\n', '\r\n');

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

const LEGACY_PAYMENT = `{"TransactionId":"N00100000000","DateTime":"20/10/2020 12:00:01 AM","RemitterName":"ABC XYZ","Amount":"10.0000","AccountName":"Test1","AccountNumber":"456213475","Bsb":"123-123","PaymentDescription":"Invoice 1001","PayId":"test@test.io","PayIdName":"TEST PTY LTD","SourceBsb":"123-123","SourceAccountNumber":"123456789","SourceAccountName":"Monoova Payers Name","EndToEndId":"NOTPROVIDED","CategoryPurposeCode":null,"CreditorReferenceInformation":null,"USINumber":null,"USIScheme":null,"UltimateCreditorName":null,"ReceiptNumber":"5678120"}`;

/** A plain valid payment for the cases about headers, each with its own TransactionId. */
const payment = (transactionId: string): string =>
  `{"TransactionId":"${transactionId}","DateTime":"2024-03-05T09:41:07.5230000","RemitterName":"SAM CITIZEN","Amount":42.00,"AccountNumber":"419001918","Bsb":"802-985","PaymentDescription":"INV-2001","EndToEndId":"E2E-20240305-0007","ReceiptNumber":5679001}`;

const REJECTION_BATCH = `[
  {
    "id": 2650,
    "batchId": 436206,
    "dateTime": "2023-08-11T14:19:16",
    "bsb": "802-985",
    "accountNumber": "123123123",
    "accountName": "ACME RECEIVABLES",
    "payId": "",
    "payIdName": "",
    "transactionCode": "50",
    "transactionType": "DE",
    "amount": 1000.12,
    "lodgementRef": "INV 7781",
    "remitterName": "Test Test",
    "indicator": "",
    "withholdingTaxAmount": 0.00,
    "endToEndId": "",
    "reason": "Unmatched Reconciliation Rule Receivable",
    "status": "Processed",
    "sourceBsb": "123-123",
    "sourceAccountNumber": "123123123",
    "sourceAccountName": "Test"
  },
  {
    "id": 2651,
    "batchId": 436206,
    "dateTime": "2023-08-11T14:19:17.5530000",
    "bsb": "802-985",
    "accountNumber": "123123124",
    "accountName": "ACME RECEIVABLES",
    "transactionType": "DE",
    "amount": "25.5000",
    "lodgementRef": "PAYROLL AUG",
    "remitterName": "WIDGETS CO",
    "reason": "Non Whitelisted Source Account",
    "status": "Processed"
  },
  {
    "id": "2652",
    "batchId": "436206",
    "dateTime": "11/08/2023 2:19:18 pm",
    "bsb": "802-985",
    "accountNumber": "123123125",
    "accountName": null,
    "transactionType": "DE",
    "amount": 0.01,
    "lodgementRef": null,
    "remitterName": "",
    "reason": "Unmatched Reconciliation Rule Receivable",
    "status": "Processed"
  }
]`;

/** Every NPPReceivePayment field of the interface document, each with a value. */
const EVERY_PAYMENT_FIELD = `{
  "TransactionId": "N00100537810",
  "DateTime": "2024-06-14T16:45:09.1200000",
  "Amount": "1875.4500",
  "AccountNumber": "419001918",
  "AccountName": "Acme Receivables",
  "Bsb": "802-985",
  "PayId": "pay@acme.example.com.au",
  "PayIdName": "ACME PTY LTD",
  "RemitterName": "MORGAN CITIZEN",
  "SourceBsb": "062-000",
  "SourceAccountNumber": "10203040",
  "SourceAccountName": "MORGAN CITIZEN",
  "PaymentDescription": "INV-20240614-77",
  "EndToEndId": "E2E-20240614-0077",
  "CreditorReferenceInformation": "RF18539007547034",
  "ReconciliationRuleReference": "RR22350",
  "CategoryPurposeCode": "SUPP",
  "UltimateCreditorName": "ACME HOLDINGS PTY LTD",
  "USINumber": "ABC0001AU",
  "USICreditorScheme": "USI",
  "LedgerAccountNumber": "5520001",
  "LedgerUniqueReference": "LUR-000777",
  "ReceiptNumber": 5679010,
  "RefundDetails": {
    "InboundAmount": "1875.4500",
    "RefundAmount": "75.4500",
    "RefundId": "RF-000312"
  }
}`;

const EVERY_PAYTO_FIELD = `{
  "TransactionId": "P00100537811",
  "DateTime": "14/06/2024 4:50:00 PM",
  "Amount": 250.00,
  "AccountNumber": "419001918",
  "AccountName": "Acme Receivables",
  "Bsb": "802-985",
  "PayId": "pay@acme.example.com.au",
  "PayIdName": "ACME PTY LTD",
  "RemitterName": "RILEY CITIZEN",
  "SourceBsb": "062-000",
  "SourceAccountNumber": "10203041",
  "SourceAccountName": "RILEY CITIZEN",
  "PaymentDescription": "Subscription June",
  "EndToEndId": "E2E-20240614-0078",
  "CreditorReferenceInformation": "RF18539007547035",
  "ReconciliationRuleReference": "RR22351",
  "CategoryPurposeCode": "SUPP",
  "UltimateCreditorName": "ACME HOLDINGS PTY LTD",
  "USINumber": "ABC0002AU",
  "USIScheme": "USI",
  "LedgerAccountNumber": "5520002",
  "LedgerUniqueReference": "LUR-000778",
  "ReceiptNumber": "5679011",
  "MmsId": "MMS-20240614-ACME-000001",
  "InitiatingPartyName": "ACME BILLING",
  "NPPInstructionId": "PI123456789",
  "RefundDetails": {
    "InboundAmount": 250.00,
    "RefundAmount": 20.00,
    "RefundId": 88124
  }
}`;

const EVERY_REJECTION_FIELD = `[
  {
    "id": 2700,
    "batchId": 436300,
    "dateTime": "2024-06-14T10:00:05",
    "transactionType": "DE",
    "transactionCode": "50",
    "status": "Processed",
    "reason": "Unmatched Reconciliation Rule Receivable",
    "amount": 640.10,
    "bsb": "802-985",
    "accountNumber": "123123123",
    "accountName": "ACME RECEIVABLES",
    "payId": "pay@acme.example.com.au",
    "payIdName": "ACME PTY LTD",
    "lodgementRef": "INV 9001",
    "endToEndId": "E2E-20240614-0100",
    "remitterName": "WIDGETS CO",
    "sourceBsb": "123-123",
    "sourceAccountNumber": "99887766",
    "sourceAccountName": "WIDGETS CO",
    "indicator": "N",
    "withholdingTaxAmount": 12.50,
    "nameOfUserSupplyingFile": "WIDGETS CO",
    "numberOfUserSupplyingFile": "123079",
    "descriptionOfEntriesOnFile": "PAYMENTS",
    "ledgerAccountNumber": "5520003",
    "ledgerUniqueReference": "LUR-000779"
  }
]`;

const CASES: Case[] = [
  {
    name: 'npp-receive-payment.iso-date-numeric-amount',
    description:
      'NPPReceivePayment, ISO date-time with a 7-digit fraction, Amount a JSON number with its decimal scale, ReceiptNumber a number; indented, CRLF',
    eventName: 'NPPReceivePayment',
    body: crlf(`{
  "TransactionId": "N00100537801",
  "DateTime": "2023-08-11T14:19:16.1234567",
  "RemitterName": "JANE CITIZEN",
  "Amount": 1250.50,
  "AccountName": "Acme Receivables",
  "AccountNumber": "419001918",
  "Bsb": "802-985",
  "PaymentDescription": "INV-10042",
  "PayId": "pay@acme.example.com.au",
  "PayIdName": "ACME PTY LTD",
  "SourceBsb": "062-000",
  "SourceAccountNumber": "12345678",
  "SourceAccountName": "JANE CITIZEN",
  "EndToEndId": "E2E-20230811-0001",
  "CategoryPurposeCode": null,
  "CreditorReferenceInformation": null,
  "USINumber": null,
  "USICreditorScheme": null,
  "UltimateCreditorName": null,
  "ReconciliationRuleReference": "RR22348",
  "ReceiptNumber": 5678121,
  "RefundDetails": null
}`),
    expected: stored({ npp_payments: 1 }),
  },
  {
    name: 'npp-receive-payment.legacy-date-string-amount',
    description:
      'NPPReceivePayment, legacy dd/MM/yyyy h:mm:ss AM date-time, Amount "10.0000" as a string, ReceiptNumber a string; compact',
    eventName: 'NPPReceivePayment',
    body: LEGACY_PAYMENT,
    contentType: 'application/json',
    expected: stored({ npp_payments: 1 }),
  },
  {
    name: 'npp-receive-payment.null-and-empty-optionals',
    description:
      'NPPReceivePayment whose optional fields are null or "" (DateTime, RemitterName, Bsb, ReceiptNumber, RefundDetails, ...); compact',
    eventName: 'NPPReceivePayment',
    body: `{"TransactionId":"N00100537803","DateTime":"","RemitterName":null,"Amount":"0.0100","AccountName":"","AccountNumber":null,"Bsb":"","PaymentDescription":"","PayId":null,"PayIdName":null,"SourceBsb":null,"SourceAccountNumber":null,"SourceAccountName":null,"EndToEndId":"","CategoryPurposeCode":null,"CreditorReferenceInformation":null,"USINumber":null,"USICreditorScheme":null,"UltimateCreditorName":null,"ReceiptNumber":null,"RefundDetails":null}`,
    expected: stored({ npp_payments: 1 }),
  },
  {
    name: 'npp-receive-payment.unknown-fields-usi-variants',
    description:
      'NPPReceivePayment with unknown extra fields (nested too) and USIScheme beside USICreditorScheme; System.Text.Json style: indented LF, non-ASCII and & escaped as \\uXXXX',
    eventName: 'NPPReceivePayment',
    body: String.raw`{
  "TransactionId": "N00100537804",
  "DateTime": "2024-01-31T23:59:59.9999999",
  "RemitterName": "O\u0027BRIEN \u0026 SONS",
  "Amount": 99.95,
  "AccountName": "Caf\u00E9 Receivables",
  "AccountNumber": "419001918",
  "Bsb": "802-985",
  "PaymentDescription": "Order \u003C5521\u003E",
  "PayId": "0412345678",
  "PayIdName": "CAF\u00C9 PTY LTD",
  "EndToEndId": "E2E-20240131-0099",
  "USINumber": "123456",
  "USICreditorScheme": "ABN",
  "USIScheme": "ABN",
  "UltimateCreditorName": "Caf\u00E9 Holdings",
  "ReconciliationRuleReference": "RR22349",
  "ReceiptNumber": "5678123",
  "SettlementStatus": "Settled",
  "Channel": {
    "Scheme": "Osko",
    "Flags": [
      "instant"
    ]
  }
}`,
    expected: stored({ npp_payments: 1 }),
  },
  {
    name: 'npp-receive-payment.refund-details',
    description:
      'NPPReceivePayment with RefundDetails (string, number and numeric-id parts), AccountNumber a bare number, legacy PM date-time; indented, CRLF',
    eventName: 'NPPReceivePayment',
    body: crlf(`{
  "TransactionId": "N00944515426",
  "DateTime": "15/04/2024 3:15:18 PM",
  "RemitterName": "DUNCAN CITIZEN",
  "Amount": "250.0000",
  "AccountName": "Acme Receivables",
  "AccountNumber": 419001918,
  "Bsb": "802-985",
  "PaymentDescription": "Order 5521 overpaid",
  "PayId": "pay@acme.example.com.au",
  "PayIdName": "ACME PTY LTD",
  "EndToEndId": "NOTPROVIDED",
  "ReceiptNumber": 5678122,
  "RefundDetails": {
    "InboundAmount": "250.0000",
    "RefundAmount": 100.25,
    "RefundId": 88123
  }
}`),
    expected: stored({ npp_payments: 1 }),
  },
  {
    name: 'npp-receive-payment.utf8-bom',
    description: 'NPPReceivePayment whose body starts with a UTF-8 byte-order mark; compact',
    eventName: 'NPPReceivePayment',
    body: Buffer.concat([UTF8_BOM, Buffer.from(payment('N00100537805'))]),
    expected: stored({ npp_payments: 1 }),
  },
  {
    name: 'npp-receive-payment.folded-signature',
    description:
      'NPPReceivePayment whose Verification-Signature is base64 wrapped at 76 columns, each line break folded to a space',
    eventName: 'NPPReceivePayment',
    body: payment('N00100537806'),
    foldSignature: true,
    expected: stored({ npp_payments: 1 }),
  },
  {
    name: 'npp-receive-payment.windows-1252-name',
    description:
      'NPPReceivePayment whose RemitterName bytes are Windows-1252, not UTF-8 (so the file holds bodyBase64); the signature covers those bytes',
    eventName: 'NPPReceivePayment',
    body: Buffer.from(
      `{"TransactionId":"N00100537807","DateTime":"2024-03-05T10:00:00","RemitterName":"JOS\u00C9 GARC\u00CDA","Amount":15.00,"ReceiptNumber":5679002}`,
      'latin1',
    ),
    expected: stored({ npp_payments: 1 }),
  },
  {
    name: 'inbound-direct-credit-rejections.batch-of-3',
    description:
      'InboundDirectCreditRejections, 3 records: ISO, ISO with fraction and dd/MM/yyyy h:mm:ss pm date-times; number and string amounts and ids; indented LF',
    eventName: 'InboundDirectCreditRejections',
    body: REJECTION_BATCH,
    expected: stored({ credit_rejections: 3 }),
  },
  {
    name: 'npp-credit-rejections.array',
    description: 'NPPCreditRejections as an array of 2 records (the contract shape); compact',
    eventName: 'NPPCreditRejections',
    body: `[{"id":2540,"batchId":22568350,"dateTime":"2023-11-08T12:30:02","bsb":"802-985","accountNumber":"818123123","accountName":"ACME RECEIVABLES","payId":"pay@acme.example.com.au","payIdName":"ACME PTY LTD","transactionCode":"50","transactionType":"NPP","amount":99.95,"lodgementRef":"INV-10077","remitterName":"JOHN CITIZEN","indicator":"","withholdingTaxAmount":0.0,"endToEndId":"E2E-20231108-0042","reason":"Non Whitelisted Source Account","status":"Processed","sourceBsb":"062-000","sourceAccountNumber":"11112222","sourceAccountName":"JOHN CITIZEN"},{"id":2541,"batchId":22568350,"dateTime":"8/11/2023 12:31:45 PM","bsb":"802-985","accountNumber":"818123123","accountName":"ACME RECEIVABLES","transactionCode":"50","transactionType":"NPP","amount":"1500.0000","lodgementRef":"","remitterName":"MARY CITIZEN","endToEndId":"NOTPROVIDED","reason":"Unmatched Reconciliation Rule Receivable","status":"Processed"}]`,
    expected: stored({ credit_rejections: 2 }),
  },
  {
    name: 'npp-credit-rejections.single-object',
    description:
      "NPPCreditRejections as one object, the provider's own published example shape; indented, CRLF",
    eventName: 'NPPCreditRejections',
    body: crlf(`{
  "id": 2531,
  "batchId": 22568344,
  "dateTime": "2023-11-08T12:25:27",
  "bsb": "123-123",
  "accountNumber": "818123123",
  "accountName": "test@test.io",
  "payId": "test@test.io",
  "payIdName": "TEST PTY. LIMITED",
  "transactionCode": "50",
  "transactionType": "NPP",
  "amount": 264.97,
  "lodgementRef": "",
  "remitterName": "TEST TEST",
  "indicator": "",
  "withholdingTaxAmount": 0.0,
  "endToEndId": "NOTPROVIDED",
  "nameOfUserSupplyingFile": "",
  "numberOfUserSupplyingFile": "",
  "descriptionOfEntriesOnFile": "",
  "reason": "Non Whitelisted Source Account",
  "status": "Processed",
  "sourceBsb": "123-123",
  "sourceAccountNumber": "123123123",
  "sourceAccountName": "TEST TEST"
}`),
    expected: stored({ credit_rejections: 1 }),
  },
  {
    name: 'npp-credit-rejections.event-name-spelled-npp',
    description:
      'NPPCreditRejections posted as /webhooks/NppCreditRejections (the spelling in another provider document); stored as the modelled event',
    eventName: 'NppCreditRejections',
    body: `[{"id":2542,"batchId":22568351,"dateTime":"2023-11-09T08:00:00","transactionType":"NPP","amount":5,"remitterName":"ALEX CITIZEN","reason":"Non Whitelisted Source Account","status":"Processed"}]`,
    expected: stored({ credit_rejections: 1 }),
  },
  {
    name: 'npp-return.unmodelled',
    description:
      'NppReturn, an event the receiver does not model (body shape invented): kept raw, no typed rows',
    eventName: 'NppReturn',
    body: `{"ReturnId":"RT-000123","OriginalTransactionId":"N00100537801","Amount":"55.0000","DateTime":"2024-03-05T11:22:33","Reason":"AC04","Debtor":{"Name":"PAT CITIZEN","AccountNumber":"12345678"}}`,
    expected: stored({}, false),
  },
  {
    name: 'npp-receive-payment.every-field',
    description:
      'NPPReceivePayment carrying every field of the contract (23, and RefundDetails with its three parts), each with a value; indented LF',
    eventName: 'NPPReceivePayment',
    body: EVERY_PAYMENT_FIELD,
    expected: stored({ npp_payments: 1 }),
  },
  {
    name: 'pay-to-receive-payment.every-field',
    description:
      'PayToReceivePayment: every NPPReceivePayment field (USIScheme spelling, ReceiptNumber a string, legacy PM date-time) plus MmsId, InitiatingPartyName, NPPInstructionId; indented LF',
    eventName: 'PayToReceivePayment',
    body: EVERY_PAYTO_FIELD,
    expected: stored({ payto_payments: 1 }),
  },
  {
    name: 'inbound-direct-credit-rejections.every-field',
    description:
      'InboundDirectCreditRejections, one record carrying all 26 fields of the rejection record, each with a value; indented LF',
    eventName: 'InboundDirectCreditRejections',
    body: EVERY_REJECTION_FIELD,
    expected: stored({ credit_rejections: 1 }),
  },
  {
    name: 'npp-receive-payment.odd-optional-fields',
    description:
      'NPPReceivePayment whose optional fields are odd (24-hour DateTime without seconds, PayId an object, RemitterName false, ReceiptNumber 5678120.5, RefundDetails []): stored, those columns null, with warnings',
    eventName: 'NPPReceivePayment',
    body: `{"TransactionId":"N00100537808","DateTime":"11/08/2023 14:19","Amount":"19.9500","PayId":{"Type":"Email","Value":"pay@acme.example.com.au"},"RemitterName":false,"ReceiptNumber":5678120.5,"RefundDetails":[]}`,
    expected: stored({ npp_payments: 1 }),
  },
  {
    name: 'npp-credit-rejections.repeated-id-other-amount',
    description:
      'NPPCreditRejections whose batch holds rejection id 2560 twice with different amounts: the first record is stored, the second is a recorded conflict',
    eventName: 'NPPCreditRejections',
    body: `[{"id":2560,"batchId":22568360,"dateTime":"2023-11-10T09:00:00","transactionType":"NPP","amount":120.00,"remitterName":"SAM CITIZEN","reason":"Non Whitelisted Source Account","status":"Processed"},{"id":2560,"batchId":22568360,"dateTime":"2023-11-10T09:00:00","transactionType":"NPP","amount":210.00,"remitterName":"SAM CITIZEN","reason":"Non Whitelisted Source Account","status":"Processed"}]`,
    expected: stored({ credit_rejections: 1, conflicts: 1 }),
  },
  {
    name: 'npp-receive-payment.refused-amount-ten',
    description: 'NPPReceivePayment whose Amount is "ten": refused and quarantined',
    eventName: 'NPPReceivePayment',
    body: `{"TransactionId":"N00100537890","DateTime":"2023-08-11T14:19:16","RemitterName":"JANE CITIZEN","Amount":"ten","AccountNumber":"419001918","Bsb":"802-985","ReceiptNumber":"5678191"}`,
    expected: quarantined(['Amount']),
  },
  {
    name: 'npp-receive-payment.refused-missing-transaction-id',
    description: 'NPPReceivePayment without TransactionId: refused and quarantined',
    eventName: 'NPPReceivePayment',
    body: crlf(`{
  "DateTime": "2023-08-11T14:19:16",
  "RemitterName": "JANE CITIZEN",
  "Amount": "42.0000",
  "AccountNumber": "419001918",
  "Bsb": "802-985",
  "PaymentDescription": "no id",
  "ReceiptNumber": "5678190"
}`),
    expected: quarantined(['TransactionId']),
  },
  {
    name: 'npp-receive-payment.refused-webhookid-missing',
    description: 'NPPReceivePayment, correctly signed, with no Webhookid header: quarantined',
    eventName: 'NPPReceivePayment',
    body: payment('N00100537892'),
    webhookId: null,
    expected: quarantined(['headers.Webhookid']),
  },
  {
    name: 'npp-receive-payment.refused-webhookid-20-digits',
    description:
      'NPPReceivePayment, correctly signed, whose Webhookid has 20 digits (beyond bigint): quarantined',
    eventName: 'NPPReceivePayment',
    body: payment('N00100537893'),
    webhookId: '12345678901234567890',
    expected: quarantined(['headers.Webhookid']),
  },
  {
    name: 'npp-receive-payment.refused-wrong-signature',
    description:
      'NPPReceivePayment whose Amount was changed after signing, so the signature does not verify: 401, nothing stored',
    eventName: 'NPPReceivePayment',
    body: payment('N00100537894').replace('"Amount":42.00', '"Amount":4200.00'),
    signedBody: payment('N00100537894'),
    expected: UNAUTHORISED,
  },
  {
    name: 'npp-receive-payment.refused-content-type-text-plain',
    description:
      'NPPReceivePayment, correctly signed, sent as text/plain: refused (not JSON by its type) and quarantined',
    eventName: 'NPPReceivePayment',
    body: payment('N00100537895'),
    contentType: 'text/plain; charset=utf-8',
    expected: quarantined(['headers.Content-Type']),
  },
];

function main(): void {
  const { privateKey, publicKey } = loadOrCreateSenderKey();
  const publicKeyHex = publicKeyAsProviderHex(publicKey);
  let written = 0;
  for (const testCase of CASES) {
    const file = new URL(`${testCase.name}.json`, CAPTURED_DIR);
    const text = serialiseCapturedDelivery(capturedDelivery(testCase, privateKey, publicKeyHex));
    if (existsSync(file) && readFileSync(file, 'utf8') === text) continue;
    writeFileSync(file, text);
    written += 1;
  }
  const removed = removeStaleSyntheticFiles(new Set(CASES.map((c) => `${c.name}.json`)));
  console.log(
    `${CASES.length} synthetic captures: ${written} written, ${CASES.length - written} unchanged, ${removed.length} removed${removed.length ? ` (${removed.join(', ')})` : ''}`,
  );
}

function capturedDelivery(c: Case, privateKey: KeyObject, publicKeyHex: string): CapturedDelivery {
  const bytes = Buffer.isBuffer(c.body) ? c.body : Buffer.from(c.body, 'utf8');
  const signature = signBody(c.signedBody ?? bytes, privateKey);
  const webhookId = c.webhookId === undefined ? webhookIdFor(c.name) : c.webhookId;
  const headers: Record<string, string> = { 'content-type': c.contentType ?? JSON_UTF8 };
  if (webhookId !== null) headers.webhookid = webhookId;
  headers['verification-signature'] = c.foldSignature ? foldSignature(signature) : signature;
  return {
    formatVersion: 1 as const,
    description: c.description,
    source: 'synthetic',
    capturedAt: CAPTURED_AT,
    eventName: c.eventName,
    headers,
    ...bodyField(bytes),
    publicKey: publicKeyHex,
    expected: c.expected,
  };
}

/**
 * .NET's Convert.ToBase64String with InsertLineBreaks wraps at 76 columns with CRLF. A header
 * value cannot hold a raw CR or LF, and a folded header line is unfolded to spaces (RFC 9112
 * obs-fold), so this is the value a receiver would see.
 */
function foldSignature(signature: string): string {
  return (signature.match(/.{1,76}/g) ?? []).join(' ');
}

/** A stable 15-digit Webhookid per case name, so reordering cases changes no file. */
function webhookIdFor(name: string): string {
  const hash = BigInt(`0x${createHash('sha256').update(name).digest('hex').slice(0, 15)}`);
  return (100_000_000_000_000n + (hash % 900_000_000_000_000n)).toString();
}

function removeStaleSyntheticFiles(current: Set<string>): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(CAPTURED_DIR)) {
    if (!name.endsWith('.json') || current.has(name)) continue;
    const file = new URL(name, CAPTURED_DIR);
    let source: unknown;
    try {
      source = (JSON.parse(readFileSync(file, 'utf8')) as { source?: unknown }).source;
    } catch {
      continue; // not ours to judge; the replay test reports a malformed file
    }
    if (source !== 'synthetic') continue;
    rmSync(file);
    removed.push(name);
  }
  return removed;
}

const TEST_ONLY_NOTE =
  'TEST-ONLY key for test/fixtures/captured (scripts/make-captured-fixtures.ts). Not a real key;\n' +
  'it signs nothing outside these fixtures. Text before the BEGIN line is ignored by PEM readers.\n';

/** The committed pair, made here once if neither half exists yet. */
function loadOrCreateSenderKey(): { privateKey: KeyObject; publicKey: KeyObject } {
  const havePrivate = existsSync(PRIVATE_KEY_FILE);
  const havePublic = existsSync(PUBLIC_KEY_FILE);
  if (!havePrivate && !havePublic) {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
    writeFileSync(
      PRIVATE_KEY_FILE,
      TEST_ONLY_NOTE + pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    );
    writeFileSync(
      PUBLIC_KEY_FILE,
      TEST_ONLY_NOTE + pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    );
    console.log('made a new test-only sender key pair in test/fixtures/keys/');
  } else if (!havePrivate || !havePublic) {
    throw new Error('captured-sender: one half of the key pair is missing; restore it from git');
  }
  const privateKey = createPrivateKey(readFileSync(PRIVATE_KEY_FILE));
  const publicKey = createPublicKey(readFileSync(PUBLIC_KEY_FILE));
  if (!publicKey.equals(createPublicKey(privateKey))) {
    throw new Error('captured-sender.public.pem is not the public half of the private key');
  }
  return { privateKey, publicKey };
}

// Last, so every constant above is initialised before it runs.
main();
