import { z } from 'zod';
import {
  ABN,
  NICK_NAME,
  OPTION_KEY,
  PERSON_NAME,
  PHONE,
  WALLET_ACCOUNT,
  WALLET_IDENTIFIER,
  email,
  patterned,
  strippedDigits,
} from './patterns.ts';

/** `GET /mWallet/v1/search` query: `clientUniqueIdentifier`, or the public `identifier`. */
export const walletSearchSchema = z.object({
  clientUniqueIdentifier: patterned(
    WALLET_IDENTIFIER,
    '1-300 letters, digits, @ . _ + - or spaces',
  ).optional(),
  identifier: patterned(WALLET_IDENTIFIER, '1-300 letters, digits, @ . _ + - or spaces').optional(),
});

const optionItem = z.object({
  key: patterned(OPTION_KEY, '1-50 letters, digits or underscores'),
  // The public reference: an empty value resets the option.
  value: z.string({ error: 'must be text' }).max(200, { error: 'must be at most 200 characters' }),
});

/**
 * `POST /mWallet/v1/update` body. `Email` and `ABN` as the interface spells them, `email` and
 * `abn` as the public reference does; the pin as 4-digit text, or as a number (public reference).
 */
export const walletUpdateSchema = z
  .object(
    {
      accountNumber: patterned(WALLET_ACCOUNT, 'exactly 16 digits'),
      pin: z
        .union(
          [
            z.string(),
            z
              .number()
              .int()
              .min(0)
              .max(9999)
              .transform((n) => String(n).padStart(4, '0')),
          ],
          {
            error: 'must be exactly 4 digits',
          },
        )
        .pipe(z.string().regex(/^\d{4}$/, { error: 'must be exactly 4 digits' })),
      name: patterned(PERSON_NAME, "1-100 letters, digits, spaces, ' - or .").optional(),
      nickName: patterned(NICK_NAME, "0-50 letters, digits, spaces, ' - or .").optional(),
      phone: strippedDigits(PHONE, '0 followed by 9 digits').optional(),
      Email: email.optional(),
      email: email.optional(),
      options: z.array(optionItem).max(50, { error: 'at most 50 options' }).optional(),
      ABN: strippedDigits(ABN, '11 digits').optional(),
      abn: strippedDigits(ABN, '11 digits').optional(),
    },
    { error: 'the body must be a JSON object' },
  )
  .transform(({ email: lower, abn, Email, ABN: upper, ...rest }) => ({
    ...rest,
    email: Email ?? lower,
    abn: upper ?? abn,
  }))
  .superRefine((body, ctx) => {
    if ((body.phone === undefined) !== (body.email === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [body.phone === undefined ? 'phone' : 'Email'],
        message: 'phone and Email must be given together',
      });
    }
  });

export type WalletUpdate = z.output<typeof walletUpdateSchema>;
