import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TypedRow } from '../../../../src/receiver/events/data-contract.ts';
import type { ParseOutcome } from '../../../../src/receiver/events/types.ts';
import { eventModel } from '../../../support/event-models.ts';

type CreditRejectionRow = TypedRow<'credit_rejections'>;
const inboundDirectCreditRejections = eventModel('InboundDirectCreditRejections');
const nppCreditRejections = eventModel('NPPCreditRejections');

function payload(name: string): unknown {
  const url = new URL(`../../../fixtures/payloads/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8'));
}

function rowsOf(outcome: ParseOutcome): CreditRejectionRow[] {
  if (!outcome.ok || outcome.typed.kind !== 'credit-rejections') {
    throw new Error(`expected rejection rows, got ${JSON.stringify(outcome)}`);
  }
  return outcome.typed.rows;
}

/** The fields the initial schema did not keep, all absent. */
const NOT_SENT = {
  transactionCode: null,
  status: null,
  payId: null,
  payIdName: null,
  endToEndId: null,
  sourceBsb: null,
  sourceAccountNumber: null,
  sourceAccountName: null,
  indicator: null,
  withholdingTaxAmount: null,
  nameOfUserSupplyingFile: null,
  numberOfUserSupplyingFile: null,
  descriptionOfEntriesOnFile: null,
  ledgerAccountNumber: null,
  ledgerUniqueReference: null,
};

const PUBLISHED_NPP_EXAMPLE_ROW: CreditRejectionRow = {
  ...NOT_SENT,
  rejectionId: '2531',
  batchId: '22568344',
  dateTimeLocal: '2023-11-08 12:25:27',
  dateTimeText: '2023-11-08T12:25:27',
  transactionType: 'NPP',
  amount: '264.97',
  bsb: '123-123',
  accountNumber: '818123123',
  accountName: 'test@test.io',
  reference: null,
  remitterName: 'TEST TEST',
  rejectionReason: 'Non Whitelisted Source Account',
  transactionCode: '50',
  status: 'Processed',
  payId: 'test@test.io',
  payIdName: 'TEST PTY. LIMITED',
  endToEndId: 'NOTPROVIDED',
  sourceBsb: '123-123',
  sourceAccountNumber: '123123123',
  sourceAccountName: 'TEST TEST',
  withholdingTaxAmount: '0',
};

describe('InboundDirectCreditRejections', () => {
  it('when the body is an array of three records, then there are three rows mapped field by field', () => {
    expect(
      rowsOf(inboundDirectCreditRejections.parse(payload('inbound-direct-credit-rejections.json'))),
    ).toEqual([
      {
        ...NOT_SENT,
        rejectionId: '2650',
        batchId: '436206',
        dateTimeLocal: '2023-08-11 14:19:16',
        dateTimeText: '2023-08-11T14:19:16',
        transactionType: 'DE',
        amount: '1000.12',
        bsb: '802-985',
        accountNumber: '123123123',
        accountName: 'ACME RECEIVABLES',
        reference: 'INV 7781',
        remitterName: 'Test Test',
        rejectionReason: 'Unmatched Reconciliation Rule Receivable',
        transactionCode: '50',
        status: 'Processed',
        sourceBsb: '123-123',
        sourceAccountNumber: '123123123',
        sourceAccountName: 'Test',
        withholdingTaxAmount: '0',
        nameOfUserSupplyingFile: 'Test',
        numberOfUserSupplyingFile: '123079',
      },
      {
        ...NOT_SENT,
        rejectionId: '2651',
        batchId: '436206',
        dateTimeLocal: '2023-08-11 14:19:17.553',
        dateTimeText: '2023-08-11T14:19:17.553',
        transactionType: 'DE',
        amount: '25.5',
        bsb: '802-985',
        accountNumber: '123123124',
        accountName: 'ACME RECEIVABLES',
        reference: 'PAYROLL AUG',
        remitterName: 'WIDGETS CO',
        rejectionReason: 'Non Whitelisted Source Account',
        transactionCode: '50',
        status: 'Processed',
        sourceBsb: '062-000',
        sourceAccountNumber: '87654321',
      },
      {
        ...NOT_SENT,
        rejectionId: '2652',
        batchId: '436206',
        dateTimeLocal: '2023-08-11 14:19:18',
        dateTimeText: '11/08/2023 2:19:18 PM',
        transactionType: 'DE',
        amount: '0.01',
        bsb: '802-985',
        accountNumber: '123123125',
        accountName: null,
        reference: null,
        remitterName: null,
        rejectionReason: 'Unmatched Reconciliation Rule Receivable',
        status: 'Processed',
      },
    ]);
  });

  it('when the body is an empty array, then it is accepted with zero rows', () => {
    expect(
      inboundDirectCreditRejections.parse(payload('inbound-direct-credit-rejections.empty.json')),
    ).toEqual({
      ok: true,
      typed: { kind: 'credit-rejections', rows: [] },
      warnings: [],
    });
  });

  it('when the body is a single object, then it is refused: this event is an array', () => {
    expect(
      inboundDirectCreditRejections.parse(
        payload('invalid-inbound-direct-credit-rejections.single-object.json'),
      ),
    ).toEqual({
      ok: false,
      problems: [{ path: '', message: 'The body must be a JSON array of rejection records' }],
    });
  });

  it('when the second record has no id, then the problem path is "[1].id"', () => {
    expect(
      inboundDirectCreditRejections.parse(payload('invalid-credit-rejections.missing-id.json')),
    ).toEqual({
      ok: false,
      problems: [{ path: '[1].id', message: '[1].id is required' }],
    });
  });

  it('when an element is not an object, then the problem names that element', () => {
    expect(inboundDirectCreditRejections.parse([{ id: 1, amount: 1 }, 'oops'])).toEqual({
      ok: false,
      problems: [{ path: '[1]', message: '[1] must be a rejection record (a JSON object)' }],
    });
  });

  it('when the amount of the third record is not a number, then the problem path is "[2].amount"', () => {
    const outcome = inboundDirectCreditRejections.parse([
      { id: 1, amount: 1 },
      { id: 2, amount: 2 },
      { id: 3, amount: 'ten' },
    ]);
    expect(outcome).toEqual({
      ok: false,
      problems: [
        {
          path: '[2].amount',
          message:
            '[2].amount must be a number or a decimal string with at most 4 decimal places (got the text "ten")',
        },
      ],
    });
  });

  it('when an id is an empty string or null, then it is refused as required', () => {
    const outcome = inboundDirectCreditRejections.parse([
      { id: '', amount: 1 },
      { id: null, amount: 1 },
    ]);
    expect(outcome).toEqual({
      ok: false,
      problems: [
        { path: '[0].id', message: '[0].id is required (got the text "")' },
        { path: '[1].id', message: '[1].id is required (got null)' },
      ],
    });
  });
});

describe('NPPCreditRejections', () => {
  it('when the body is an array, then there is one row per record', () => {
    const rows = rowsOf(nppCreditRejections.parse(payload('npp-credit-rejections.array.json')));
    expect(rows.map((r) => [r.rejectionId, r.amount, r.dateTimeLocal, r.reference])).toEqual([
      ['2540', '99.95', '2023-11-08 12:30:02', 'INV-10077'],
      ['2541', '1500', '2023-11-08 12:31:45.000000', null],
    ]);
  });

  it('when the body is the published single object, then it is one row', () => {
    expect(nppCreditRejections.parse(payload('npp-credit-rejections.single-object.json'))).toEqual({
      ok: true,
      typed: { kind: 'credit-rejections', rows: [PUBLISHED_NPP_EXAMPLE_ROW] },
      warnings: [],
    });
  });

  it('when the body is an empty array, then it is accepted with zero rows', () => {
    expect(nppCreditRejections.parse([])).toEqual({
      ok: true,
      typed: { kind: 'credit-rejections', rows: [] },
      warnings: [],
    });
  });

  it('when a single object has no id, then the path has no index', () => {
    expect(nppCreditRejections.parse({ amount: 1 })).toEqual({
      ok: false,
      problems: [{ path: 'id', message: 'id is required' }],
    });
  });

  it.each([null, 'records', 7])(
    'when the body is %j, then it is refused naming both accepted shapes',
    (body) => {
      expect(nppCreditRejections.parse(body)).toEqual({
        ok: false,
        problems: [
          {
            path: '',
            message: 'The body must be a JSON array of rejection records, or a single record',
          },
        ],
      });
    },
  );
});
