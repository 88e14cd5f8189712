import { z } from 'zod';
import { AMOUNT_PATTERN } from '../core/money.ts';

const text = (max: number) =>
  z
    .string({ error: `must be text of 1-${max} characters` })
    .min(1, { error: `must be text of 1-${max} characters` })
    .max(max, { error: `must be text of 1-${max} characters` });

/**
 * `POST /receivables/v2/refund` body. The interface spells the nonce `UniqueReference`, the
 * public reference `uniqueReference`: both are taken. The interface marks every field optional;
 * the sandbox still needs to know what to refund (a transaction id or, for PayTo, the payment
 * initiation UID) and how much, so those are required.
 */
export const refundSchema = z
  .object(
    {
      UniqueReference: text(100).optional(),
      uniqueReference: text(100).optional(),
      description: text(280).optional(),
      paymentInitiationUid: text(100).optional(),
      refundReference: text(18).optional(),
      originalTransactionId: z
        .union([text(50), z.number().int().nonnegative().transform(String)], {
          error: 'must be the transactionId of the payment (text)',
        })
        .optional(),
      refundAmount: z
        .union([z.string(), z.number().transform(String)], { error: 'must be a decimal amount' })
        .pipe(
          z
            .string()
            .regex(AMOUNT_PATTERN, { error: 'must be a decimal amount with at most 2 places' }),
        ),
    },
    { error: 'the body must be a JSON object' },
  )
  .transform(({ UniqueReference, uniqueReference, ...rest }) => ({
    ...rest,
    uniqueReference: UniqueReference ?? uniqueReference,
  }))
  .superRefine((body, ctx) => {
    if (body.originalTransactionId === undefined && body.paymentInitiationUid === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['originalTransactionId'],
        message: 'originalTransactionId (or paymentInitiationUid for PayTo) is required',
      });
    }
  });

export type RefundRequest = z.output<typeof refundSchema>;
