import { z } from 'zod';
import type { Dialect } from '../core/dialect.ts';
import { AMOUNT_PATTERN } from '../core/money.ts';
import { refundSchema, type RefundRequest } from './refund-schema.ts';
import { limitedText, number, OBJECT_BODY, patternedText } from './strict-fields.ts';

/**
 * The refund body as each dialect reads it. The two documents cannot both be met by one
 * request (the nonce's spelling, the amount's JSON type), so a strict dialect is where a
 * client's guess is tested. Money: what a dialect does not read, it does not see; the
 * interface's lower-case `uniqueReference` is ignored, so such a refund has no nonce and a
 * repeat refunds again, which is the risk a client must survive.
 */
const AMOUNT_RULE = 'a decimal amount with at most 2 places';

/**
 * The interface: every field a JSON string and optional, the nonce `UniqueReference`. The
 * sandbox still needs to know what to refund and how much, so those are required.
 */
const interfaceRefund = z
  .object(
    {
      UniqueReference: limitedText(100).optional(),
      description: limitedText(280).optional(),
      paymentInitiationUid: limitedText(100).optional(),
      refundReference: limitedText(18).optional(),
      originalTransactionId: limitedText(50).optional(),
      refundAmount: patternedText(AMOUNT_PATTERN, AMOUNT_RULE),
    },
    OBJECT_BODY,
  )
  .transform(({ UniqueReference, ...rest }) => ({ ...rest, uniqueReference: UniqueReference }))
  .superRefine((body, ctx) => {
    if (body.originalTransactionId === undefined && body.paymentInitiationUid === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['originalTransactionId'],
        message: 'is required (or paymentInitiationUid, for PayTo)',
      });
    }
  });

/**
 * The public reference: `uniqueReference`, `originalTransactionId` and `refundAmount` (a JSON
 * number) required; no `paymentInitiationUid`.
 */
const publicRefund = z.object(
  {
    uniqueReference: limitedText(100),
    description: limitedText(280).optional(),
    refundReference: limitedText(18).optional(),
    originalTransactionId: limitedText(50),
    refundAmount: number()
      // The shortest text that reads back as the same double: 40 → "40", 12.5 → "12.5".
      .transform(String)
      .pipe(z.string().regex(AMOUNT_PATTERN, { error: `must be ${AMOUNT_RULE}` })),
  },
  OBJECT_BODY,
);

export const REFUND_SCHEMAS: Record<Dialect, z.ZodType<RefundRequest>> = {
  any: refundSchema,
  interface: interfaceRefund,
  public: publicRefund,
};
