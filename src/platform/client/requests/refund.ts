import { z } from 'zod';
import type { Dialect } from '../protocol/dialect.ts';
import { toUnits } from '../../../lib/money.ts';
import { pattern, positiveAmount } from './rules.ts';

/**
 * POST /receivables/v2/refund, asked for in neutral terms and sent in either dialect. The
 * interface marks every field optional and types each as text; the public reference requires
 * `uniqueReference` (lower-case u), `originalTransactionId` and `refundAmount` as a JSON number.
 * We require all three: without the nonce a retry could refund twice.
 */
export const refundRequest = z.strictObject({
  uniqueReference: pattern(/^[A-Za-z0-9._-]{8,50}$/, '8-50 letters, digits or . _ -'),
  originalTransactionId: pattern(/^[A-Za-z0-9._-]{1,50}$/, "the original payment's transactionId"),
  refundAmount: positiveAmount.refine(
    (amount) => toUnits(String(Number(amount))) === toUnits(amount),
    'must be an amount a JSON number holds exactly',
  ),
  description: z.string().max(100, 'must be at most 100 characters').optional(),
  refundReference: z.string().max(18, 'must be at most 18 characters').optional(),
  /** Interface only (PayTo); the public reference has no such field. */
  paymentInitiationUid: z.string().max(100, 'must be at most 100 characters').optional(),
});

export type RefundRequest = z.input<typeof refundRequest>;

/**
 * The body in one dialect. The nonce goes in BOTH spellings whatever the dialect: a platform
 * that reads only one spelling and ignores unknown fields (as JSON APIs commonly do) then still
 * sees it, so a retry can never become a second refund. Only the amount's type differs: text
 * (interface) or a JSON number (public), which no one body can satisfy.
 */
export function refundBody(
  request: z.output<typeof refundRequest>,
  dialect: Dialect,
): Record<string, unknown> {
  const { uniqueReference, refundAmount, paymentInitiationUid, ...rest } = request;
  const nonce =
    dialect === 'interface'
      ? { UniqueReference: uniqueReference, uniqueReference }
      : { uniqueReference, UniqueReference: uniqueReference };
  return {
    ...nonce,
    ...rest,
    refundAmount: dialect === 'interface' ? refundAmount : Number(refundAmount),
    ...(dialect === 'interface' && paymentInitiationUid !== undefined && { paymentInitiationUid }),
  };
}
