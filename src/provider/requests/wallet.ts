import { z } from 'zod';
import { digits, pattern, phone } from './rules.ts';

/** GET /mWallet/v1/search: an email, phone or 16-digit wallet number; omitted: every wallet. */
export const walletSearchRequest = z.strictObject({
  clientUniqueIdentifier: pattern(
    /^[A-Za-z0-9@._+\- ]{1,300}$/,
    '1-300 letters, digits, spaces or @ . _ + -',
  ).optional(),
});

const walletName = (min: number, max: number) =>
  pattern(
    new RegExp(`^[A-Za-z0-9 '.-]{${min},${max}}$`),
    `${min}-${max} letters, digits, spaces or ' - .`,
  );

const optionItem = z.strictObject({
  key: pattern(/^\w{1,50}$/, '1-50 letters, digits or underscores'),
  value: z.string().max(200, 'must be at most 200 characters'),
});

/**
 * POST /mWallet/v1/update. `Email` has a capital E in the interface; `phone` and `Email` come
 * together or not at all. The pin authenticates the update and is never logged.
 */
export const walletUpdateRequest = z
  .strictObject({
    accountNumber: digits(16),
    pin: digits(4),
    name: walletName(1, 100).optional(),
    nickName: walletName(0, 50).optional(),
    phone: phone.optional(),
    Email: z
      .email({ error: 'must be an email address' })
      .max(300, 'must be at most 300 characters')
      .transform((value) => value.toLowerCase())
      .optional(),
    options: z.array(optionItem).max(50, 'must hold at most 50 options').optional(),
    ABN: z
      .string()
      .transform((value) => value.replace(/\D/g, ''))
      .pipe(digits(11))
      .optional(),
  })
  .refine((body) => (body.phone === undefined) === (body.Email === undefined), {
    path: ['Email'],
    message: 'and phone must be given together',
  });

export type WalletSearchRequest = z.input<typeof walletSearchRequest>;
export type WalletUpdateRequest = z.input<typeof walletUpdateRequest>;
