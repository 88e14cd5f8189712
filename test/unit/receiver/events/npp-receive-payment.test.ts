import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TypedRow } from '../../../../src/receiver/events/data-contract.ts';
import type { ParseOutcome } from '../../../../src/receiver/events/types.ts';
import { eventModel } from '../../../support/event-models.ts';
import { emptyPaymentRow } from '../../../support/sample-bodies.ts';

function payload(name: string): unknown {
  const url = new URL(`../../../fixtures/payloads/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8'));
}

const nppReceivePayment = eventModel('NPPReceivePayment');

function rowOf(outcome: ParseOutcome): TypedRow<'npp_payments'> {
  if (!outcome.ok || outcome.typed.kind !== 'npp-payment') {
    throw new Error(`expected one payment row, got ${JSON.stringify(outcome)}`);
  }
  return outcome.typed.rows[0];
}

/** Every column but the two required ones, null. */
const EMPTY_ROW = Object.fromEntries(
  Object.entries(emptyPaymentRow()).filter(([key]) => key !== 'transactionId' && key !== 'amount'),
);

describe('NPPReceivePayment', () => {
  it('when the body has an ISO date-time and a numeric amount, then every column is mapped', () => {
    expect(nppReceivePayment.parse(payload('npp-receive-payment.iso.json'))).toEqual({
      ok: true,
      typed: {
        kind: 'npp-payment',
        rows: [
          {
            ...EMPTY_ROW,
            transactionId: 'N00100537801',
            endToEndId: 'E2E-20230811-0001',
            amount: '1250.5',
            dateTimeLocal: '2023-08-11 14:19:16.123456',
            dateTimeText: '2023-08-11T14:19:16.1234567',
            receiptNumber: '5678121',
            payId: 'pay@acme.example.com.au',
            remitterName: 'JANE CITIZEN',
            bsb: '802-985',
            accountNumber: '419001918',
            remittanceInformation: 'INV-10042',
            payIdName: 'ACME PTY LTD',
            accountName: 'Acme Receivables',
            sourceBsb: '062-000',
            sourceAccountNumber: '12345678',
            sourceAccountName: 'JANE CITIZEN',
            reconciliationRuleReference: 'RR22348',
          },
        ],
      },
      warnings: [],
    });
  });

  it('when the body is the published example (AM/PM, "10.0000", nulls and ""), then it is accepted', () => {
    expect(
      rowOf(nppReceivePayment.parse(payload('npp-receive-payment.legacy-format.json'))),
    ).toEqual({
      ...EMPTY_ROW,
      transactionId: 'N00100000000',
      endToEndId: null,
      amount: '10',
      dateTimeLocal: '2020-10-20 00:00:01',
      dateTimeText: '20/10/2020 12:00:01 AM',
      receiptNumber: '5678120',
      payId: null,
      remitterName: 'ABC XYZ',
      bsb: '123-123',
      accountNumber: '456213475',
      accountName: 'Test1',
      sourceBsb: '123-123',
      sourceAccountNumber: '123456789',
      sourceAccountName: 'Monoova Payers Name',
    });
  });

  it('when RefundDetails, unknown fields and both USI spellings are present, then refund columns are filled', () => {
    expect(
      rowOf(nppReceivePayment.parse(payload('npp-receive-payment.refund-details.json'))),
    ).toEqual({
      ...EMPTY_ROW,
      transactionId: 'N00944515426',
      endToEndId: 'NOTPROVIDED',
      amount: '250',
      dateTimeLocal: '2024-04-15 15:15:18',
      dateTimeText: '15/04/2024 3:15:18 PM',
      receiptNumber: '5678122',
      payId: 'pay@acme.example.com.au',
      remitterName: 'DUNCAN CITIZEN',
      bsb: '802-985',
      accountNumber: '419001918',
      remittanceInformation: 'Order 5521 overpaid',
      refundInboundAmount: '250',
      refundAmount: '100.25',
      refundId: '88123',
      payIdName: 'ACME PTY LTD',
      accountName: 'Acme Receivables',
      sourceBsb: '802-985',
      sourceAccountNumber: '319306151',
      sourceAccountName: 'DUNCAN CITIZEN',
    });
  });

  it('when only TransactionId and Amount are sent, then every other column is null', () => {
    expect(rowOf(nppReceivePayment.parse(payload('npp-receive-payment.minimal.json')))).toEqual({
      transactionId: 'N00100537802',
      amount: '0.01',
      ...EMPTY_ROW,
    });
  });

  it('when TransactionId is a JSON number, then it is stored as its digits', () => {
    expect(
      rowOf(nppReceivePayment.parse({ TransactionId: 1234567, Amount: 2 })).transactionId,
    ).toBe('1234567');
  });

  it('when RefundDetails is null or has only some parts, then the missing parts are null', () => {
    expect(
      rowOf(nppReceivePayment.parse({ TransactionId: 'N1', Amount: 1, RefundDetails: null })),
    ).toMatchObject({ refundInboundAmount: null, refundAmount: null, refundId: null });
    expect(
      rowOf(
        nppReceivePayment.parse({
          TransactionId: 'N1',
          Amount: 1,
          RefundDetails: { RefundAmount: '5.0000', RefundId: 'RF-77', Extra: true },
        }),
      ),
    ).toMatchObject({ refundInboundAmount: null, refundAmount: '5', refundId: 'RF-77' });
  });

  it('when DateTime carries a UTC "Z", then the row holds the Sydney time it denotes', () => {
    const row = rowOf(
      nppReceivePayment.parse({ TransactionId: 'N1', Amount: 1, DateTime: '2024-01-15T13:00:00Z' }),
    );
    expect([row.dateTimeLocal, row.dateTimeText]).toEqual([
      '2024-01-16 00:00:00',
      '2024-01-15T13:00:00Z',
    ]);
  });

  it('when TransactionId is missing, then the body is refused naming TransactionId', () => {
    expect(
      nppReceivePayment.parse(payload('invalid-npp-receive-payment.missing-transaction-id.json')),
    ).toEqual({
      ok: false,
      problems: [{ path: 'TransactionId', message: 'TransactionId is required' }],
    });
  });

  it('when the amount is "ten", then the body is refused naming Amount', () => {
    expect(
      nppReceivePayment.parse(payload('invalid-npp-receive-payment.amount-not-a-number.json')),
    ).toEqual({
      ok: false,
      problems: [
        {
          path: 'Amount',
          message:
            'Amount must be a number or a decimal string with at most 4 decimal places (got the text "ten")',
        },
      ],
    });
  });

  it('when the body is an array, then it is refused as the wrong top-level shape', () => {
    expect(nppReceivePayment.parse(payload('invalid-npp-receive-payment.array-body.json'))).toEqual(
      {
        ok: false,
        problems: [
          {
            path: '',
            message: 'The body must be a JSON object (one NPPReceivePayment notification)',
          },
        ],
      },
    );
  });

  it.each([null, 'N1', 42, true])(
    'when the body is %j, then it is refused as the wrong shape',
    (body) => {
      expect(nppReceivePayment.parse(body)).toMatchObject({ ok: false, problems: [{ path: '' }] });
    },
  );

  it('when DateTime is 31 February, then the payment is kept with a null time, the text and a warning', () => {
    const outcome = nppReceivePayment.parse(
      payload('invalid-npp-receive-payment.impossible-date.json'),
    );
    expect(rowOf(outcome)).toMatchObject({
      dateTimeLocal: null,
      dateTimeText: '31/02/2024 10:00:00 AM',
    });
    expect(outcome.ok && outcome.warnings).toEqual([
      {
        path: 'DateTime',
        message:
          'DateTime is not a real date and time (got the text "31/02/2024 10:00:00 AM"); the text is kept',
      },
    ]);
  });

  it('when several fields are wrong, then only TransactionId and Amount are problems; the rest are warnings', () => {
    const body = {
      TransactionId: '',
      Amount: '1.23456',
      ReceiptNumber: 1.5,
      PayId: { email: 'x' },
      RefundDetails: { RefundAmount: 'lots' },
    };
    const outcome = nppReceivePayment.parse(body);
    expect(outcome.ok ? [] : outcome.problems.map((p) => p.path)).toEqual([
      'TransactionId',
      'Amount',
    ]);
    const lenient = nppReceivePayment.parse({ ...body, TransactionId: 'N1', Amount: 1 });
    expect(lenient.ok && lenient.warnings.map((w) => w.path)).toEqual([
      'ReceiptNumber',
      'PayId',
      'RefundDetails.RefundAmount',
    ]);
    expect(rowOf(lenient)).toMatchObject({ receiptNumber: null, payId: null, refundAmount: null });
  });

  it('when RefundDetails is not an object, then its columns are null with a warning naming RefundDetails', () => {
    const outcome = nppReceivePayment.parse({
      TransactionId: 'N1',
      Amount: 1,
      RefundDetails: 'none',
    });
    expect(rowOf(outcome)).toMatchObject({
      refundInboundAmount: null,
      refundAmount: null,
      refundId: null,
    });
    expect(outcome.ok && outcome.warnings).toEqual([
      {
        path: 'RefundDetails',
        message: 'RefundDetails must be an object or null; its parts are stored as null',
      },
    ]);
  });

  it('when a text field is sent as a JSON number, then it is stored as its digits', () => {
    expect(
      rowOf(nppReceivePayment.parse({ TransactionId: 'N1', Amount: 1, AccountNumber: 12345678 }))
        .accountNumber,
    ).toBe('12345678');
  });

  it('when ReceiptNumber is not all digits, then it is still kept as text', () => {
    expect(
      rowOf(nppReceivePayment.parse({ TransactionId: 'N1', Amount: 1, ReceiptNumber: 'R-5678120' }))
        .receiptNumber,
    ).toBe('R-5678120');
  });

  it('when the amount is negative, then it is kept with its sign', () => {
    expect(rowOf(nppReceivePayment.parse({ TransactionId: 'N1', Amount: '-10.50' })).amount).toBe(
      '-10.5',
    );
  });
});
