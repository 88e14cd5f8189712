import { z } from 'zod';
import { pattern, positiveAmount } from './rules.ts';

/**
 * POST /receivables/v2/refund. The interface marks every field optional and types each as text;
 * the platform's reference requires `uniqueReference`, `originalTransactionId` and
 * `refundAmount`. We require them too: without the reference a retry could refund twice.
 */
export const refundRequest = z.strictObject({
  UniqueReference: pattern(/^[A-Za-z0-9._-]{8,50}$/, '8-50 letters, digits or . _ -'),
  originalTransactionId: pattern(/^[A-Za-z0-9._-]{1,50}$/, "the original payment's transactionId"),
  refundAmount: positiveAmount,
  description: z.string().max(100, 'must be at most 100 characters').optional(),
  refundReference: z.string().max(18, 'must be at most 18 characters').optional(),
  paymentInitiationUid: z.string().max(100, 'must be at most 100 characters').optional(),
});

export type RefundRequest = z.input<typeof refundRequest>;
