import { describe, expect, it } from 'vitest';
import { eventModel } from '../../../support/event-models.ts';
import type { ParseOutcome } from '../../../../src/receiver/events/types.ts';

const inboundDirectCredit = eventModel('InboundDirectCredit');

function typedOf(outcome: ParseOutcome) {
  if (!outcome.ok || outcome.typed.kind !== 'direct-credits') {
    throw new Error(`expected direct-credit rows, got ${JSON.stringify(outcome)}`);
  }
  return { ...outcome.typed, warnings: outcome.warnings };
}

const record = (overrides: Record<string, unknown> = {}) => ({
  TransactionId: 'D00100537784',
  Amount: 10,
  ...overrides,
});

describe('InboundDirectCredit', () => {
  it('when a record has every published field, then each fills its column, identifiers as text with leading zeros', () => {
    const { rows, batch, warnings } = typedOf(
      inboundDirectCredit.parse({
        TotalCount: 1,
        TotalAmount: 100.25,
        DirectCreditDetails: [
          {
            TransactionId: 'D00100537784',
            BatchId: '0000000212749',
            DateTime: '2020-01-13T14:21:50.553',
            Bsb: '802-985',
            AccountNumber: 419001918,
            AccountName: 'ACME',
            TransactionCode: '50',
            Amount: 100.25,
            LodgementRef: 'INV 1',
            RemitterName: 'WIDGETS CO',
            NameOfUserSupplyingFile: 'BANK',
            NumberOfUserSupplyingFile: '123079',
            DescriptionOfEntriesOnFile: 'PAYMENTS',
            Indicator: 'Y',
            WithholdingTaxAmount: '1.5000',
            SourceBsb: '062-000',
            SourceAccountNumber: '0012345678',
            ReceiptNumber: '0005678200',
          },
        ],
      }),
    );
    expect(rows).toEqual([
      {
        transactionId: 'D00100537784',
        amount: '100.25',
        batchId: '0000000212749',
        dateTimeLocal: '2020-01-13 14:21:50.553',
        dateTimeText: '2020-01-13T14:21:50.553',
        bsb: '802-985',
        accountNumber: '419001918',
        accountName: 'ACME',
        transactionCode: '50',
        lodgementRef: 'INV 1',
        remitterName: 'WIDGETS CO',
        nameOfUserSupplyingFile: 'BANK',
        numberOfUserSupplyingFile: '123079',
        descriptionOfEntriesOnFile: 'PAYMENTS',
        indicator: 'Y',
        withholdingTaxAmount: '1.5',
        sourceBsb: '062-000',
        sourceAccountNumber: '0012345678',
        receiptNumber: '0005678200',
      },
    ]);
    expect(batch).toEqual({ totalCount: 1, totalAmount: '100.25', recordCount: 1 });
    expect(warnings).toEqual([]);
  });

  it('when amounts have four places, then the total check is exact (no floating point)', () => {
    const { warnings } = typedOf(
      inboundDirectCredit.parse({
        TotalCount: '3',
        TotalAmount: '0.3',
        DirectCreditDetails: [
          record({ TransactionId: 'D1', Amount: 0.1 }),
          record({ TransactionId: 'D2', Amount: 0.2 }),
          record({ TransactionId: 'D3', Amount: '0.0000' }),
        ],
      }),
    );
    expect(warnings).toEqual([]);
  });

  it('when the totals disagree with the records, then warnings say by how much', () => {
    const { batch, warnings } = typedOf(
      inboundDirectCredit.parse({
        TotalCount: 2,
        TotalAmount: '999999999999999.9999',
        DirectCreditDetails: [record({ Amount: '-0.0001' })],
      }),
    );
    expect(batch).toEqual({ totalCount: 2, totalAmount: '999999999999999.9999', recordCount: 1 });
    expect(warnings).toEqual([
      { path: 'TotalCount', message: 'TotalCount is 2 but DirectCreditDetails holds 1 records' },
      {
        path: 'TotalAmount',
        message: "TotalAmount is 999999999999999.9999 but the records' amounts add up to -0.0001",
      },
    ]);
  });

  it.each([
    ['a negative count', -1],
    ['a fraction', 1.5],
    ['words', 'one'],
    ['beyond an integer column', 2_147_483_648],
  ])('when TotalCount is %s, then it is null with a warning', (_name, value) => {
    const { batch, warnings } = typedOf(
      inboundDirectCredit.parse({ TotalCount: value, DirectCreditDetails: [record()] }),
    );
    expect(batch.totalCount).toBeNull();
    expect(warnings.map((w) => w.path)).toEqual(['TotalCount']);
  });

  it('when the totals are absent, then they are null without a warning', () => {
    const { batch, warnings } = typedOf(
      inboundDirectCredit.parse({ DirectCreditDetails: [record()] }),
    );
    expect(batch).toEqual({ totalCount: null, totalAmount: null, recordCount: 1 });
    expect(warnings).toEqual([]);
  });

  it.each([
    ['a JSON array', [record()], ''],
    ['null', null, ''],
    ['an object without DirectCreditDetails', { TotalCount: 1 }, 'DirectCreditDetails'],
    ['DirectCreditDetails an object', { DirectCreditDetails: record() }, 'DirectCreditDetails'],
  ])('when the body is %s, then it is refused', (_name, body, path) => {
    const outcome = inboundDirectCredit.parse(body);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.problems.map((p) => p.path)).toEqual([path]);
  });

  it('when several records are refused, then each problem is listed with its record', () => {
    const outcome = inboundDirectCredit.parse({
      DirectCreditDetails: [record(), { Amount: 1 }, record({ Amount: 'ten' }), 7],
    });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.problems.map((p) => p.path)).toEqual([
        'DirectCreditDetails[1].TransactionId',
        'DirectCreditDetails[2].Amount',
        'DirectCreditDetails[3]',
      ]);
    }
  });
});
