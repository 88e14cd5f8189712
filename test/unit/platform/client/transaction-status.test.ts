import { describe, expect, it } from 'vitest';
import {
  refundStatusEvidence,
  transactionStatusResponse,
} from '../../../../src/platform/client/responses/transaction-status.ts';

const read = (body: unknown) =>
  refundStatusEvidence(transactionStatusResponse.parse(body), 'rf0123456789');

describe("the platform's status look-up as evidence about a refund in doubt", () => {
  it('when the answer is the refund’s own record, made, then it is made (nested or top level, any casing)', () => {
    expect(
      read({
        status: 'Ok',
        transaction: {
          uniqueReference: 'rf0123456789',
          transactionId: 77,
          transactionType: 'Refund',
          transactionStatus: 'Made',
        },
      }),
    ).toEqual({ kind: 'made', transactionId: '77', statusWord: 'Made' });
    expect(
      read({ Status: 'Ok', UniqueReference: 'rf0123456789', TransactionStatus: 'completed' }),
    ).toMatchObject({ kind: 'made' });
  });

  it('when the record says rejected, then it is rejected', () => {
    expect(
      read({ transaction: { uniqueReference: 'rf0123456789', transactionStatus: 'Declined' } }),
    ).toEqual({ kind: 'rejected', statusWord: 'Declined' });
  });

  it.each([
    [
      'another reference',
      { transaction: { uniqueReference: 'rfother', transactionStatus: 'Made' } },
    ],
    ['no record', { status: 'Ok' }],
    [
      'a payment, not a refund',
      { uniqueReference: 'rf0123456789', transactionType: 'NPP', transactionStatus: 'Made' },
    ],
    [
      'a status word not known',
      { uniqueReference: 'rf0123456789', transactionStatus: 'Processing' },
    ],
  ])('when the answer is %s, then it is no evidence either way', (_name, body) => {
    expect(read(body)).toMatchObject({ kind: 'no-evidence' });
  });
});
