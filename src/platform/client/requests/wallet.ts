import { z } from 'zod';
import type { Dialect } from '../protocol/dialect.ts';
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

/** The interface's capitalised spellings, accepted from callers and read as the neutral ones. */
const CALLER_ALIASES: Record<string, string> = { Email: 'email', ABN: 'abn' };

/**
 * POST /mWallet/v1/update, asked for in neutral terms (`email`, `abn`; `Email` and `ABN` are
 * accepted too) and sent in either dialect (`walletUpdateBody`). `phone` and `email` come
 * together or not at all. The pin authenticates the update and is never logged.
 */
export const walletUpdateRequest = z
  .preprocess(
    (input) =>
      input !== null && typeof input === 'object' && !Array.isArray(input)
        ? Object.fromEntries(
            Object.entries(input).map(([key, value]) => [CALLER_ALIASES[key] ?? key, value]),
          )
        : input,
    z.strictObject({
      accountNumber: digits(16),
      pin: digits(4),
      name: walletName(1, 100).optional(),
      nickName: walletName(0, 50).optional(),
      phone: phone.optional(),
      email: z
        .email({ error: 'must be an email address' })
        .max(300, 'must be at most 300 characters')
        .transform((value) => value.toLowerCase())
        .optional(),
      options: z.array(optionItem).max(50, 'must hold at most 50 options').optional(),
      abn: z
        .string()
        .transform((value) => value.replace(/\D/g, ''))
        .pipe(digits(11))
        .optional(),
    }),
  )
  .refine((body) => (body.phone === undefined) === (body.email === undefined), {
    path: ['email'],
    message: 'and phone must be given together',
  });

export type WalletSearchRequest = z.input<typeof walletSearchRequest>;
export type WalletUpdateRequest = {
  accountNumber: string;
  pin: string;
  name?: string;
  nickName?: string;
  phone?: string;
  email?: string;
  Email?: string;
  abn?: string;
  ABN?: string;
  options?: { key: string; value: string }[];
};
export type CheckedWalletUpdate = z.output<typeof walletUpdateRequest>;

/**
 * The body in one dialect. Interface: `Email`, `ABN`, the pin as 4-digit text. Public
 * reference: lower-case `email`, `abn`, the pin as a JSON number, and `name` required (the
 * caller fills it in when it was not given: see the client).
 */
export function walletUpdateBody(
  request: CheckedWalletUpdate,
  dialect: Dialect,
): Record<string, unknown> {
  const { email, abn, pin, ...rest } = request;
  if (dialect === 'interface') {
    return {
      ...rest,
      pin,
      ...(email !== undefined && { Email: email }),
      ...(abn !== undefined && { ABN: abn }),
    };
  }
  return {
    ...rest,
    pin: Number(pin),
    ...(email !== undefined && { email }),
    ...(abn !== undefined && { abn }),
  };
}
