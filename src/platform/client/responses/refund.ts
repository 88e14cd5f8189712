import { z } from 'zod';
import { lenientObject, money, text } from './lenient.ts';

/**
 * The refund's own transaction id (int32 in one document, text elsewhere) and its fees. The id
 * is required: an `Ok` without it is not an answer we can record as a refund.
 */
export const refundResponse = lenientObject({
  transactionId: z.preprocess(
    (v) => (typeof v === 'number' || typeof v === 'bigint' ? String(v) : v),
    z
      .string({ error: 'the answer has no transactionId' })
      .min(1, 'the answer has no transactionId'),
  ),
  callerUniqueReference: text,
  feeAmountExcludingGst: money,
  feeAmountIncludingGst: money,
  feeAmountGstComponent: money,
});
