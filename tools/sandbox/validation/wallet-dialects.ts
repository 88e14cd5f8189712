import { z } from 'zod';
import type { Dialect } from '../core/dialect.ts';
import {
  ABN,
  EMAIL,
  NICK_NAME,
  OPTION_KEY,
  PERSON_NAME,
  PHONE,
  WALLET_ACCOUNT,
  WALLET_IDENTIFIER,
  digitsOnly,
} from './patterns.ts';
import { number, numberOrText, OBJECT_BODY, patternedText, text } from './strict-fields.ts';
import { walletSearchSchema, walletUpdateSchema, type WalletUpdate } from './wallet-schemas.ts';

/** The wallet calls as each dialect reads them (dialect.ts); `any` is the accepting original. */

const IDENTIFIER_RULE = '1-300 letters, digits, @ . _ + - or spaces';
const identifier = patternedText(WALLET_IDENTIFIER, IDENTIFIER_RULE).optional();

export const WALLET_SEARCH_SCHEMAS: Record<
  Dialect,
  z.ZodType<{ identifier: string | undefined }>
> = {
  any: walletSearchSchema.transform((q) => ({
    identifier: q.clientUniqueIdentifier ?? q.identifier,
  })),
  interface: z
    .object({ clientUniqueIdentifier: identifier })
    .transform((q) => ({ identifier: q.clientUniqueIdentifier })),
  public: z.object({ identifier }).transform((q) => ({ identifier: q.identifier })),
};

const accountNumber = patternedText(WALLET_ACCOUNT, 'exactly 16 digits');
const name = patternedText(PERSON_NAME, "1-100 letters, digits, spaces, ' - or .");
const nickName = patternedText(NICK_NAME, "0-50 letters, digits, spaces, ' - or .").optional();
const email = text()
  .max(300, { error: 'must be at most 300 characters' })
  .regex(EMAIL, { error: 'must be an email address (with @)' })
  .transform((value) => value.toLowerCase());
const abn = text()
  .transform(digitsOnly)
  .pipe(z.string().regex(ABN, { error: 'must be 11 digits (non-digits are ignored)' }));
const phoneText = text()
  .transform(digitsOnly)
  .pipe(z.string().regex(PHONE, { error: 'must be 0 followed by 9 digits' }));
const options = z
  .array(
    z.object({
      key: patternedText(OPTION_KEY, '1-50 letters, digits or underscores'),
      value: text().max(200, { error: 'must be at most 200 characters' }),
    }),
    { error: 'must be a list of {key, value}' },
  )
  .max(50, { error: 'at most 50 options' })
  .optional();

/** The interface: pin as 4-digit text, `Email` and `ABN` capitalised, phone with Email. */
const interfaceUpdate = z
  .object(
    {
      accountNumber,
      pin: patternedText(/^\d{4}$/, 'exactly 4 digits'),
      name: name.optional(),
      nickName,
      phone: phoneText.optional(),
      Email: email.optional(),
      options,
      ABN: abn.optional(),
    },
    OBJECT_BODY,
  )
  .transform(({ Email, ABN: upper, ...rest }) => ({ ...rest, email: Email, abn: upper }))
  .superRefine((body, ctx) => {
    if ((body.phone === undefined) !== (body.email === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [body.phone === undefined ? 'phone' : 'Email'],
        message: 'phone and Email must be given together',
      });
    }
  });

/**
 * A phone sent as a JSON number has lost its leading 0 (0412345678 → 412345678): the digits,
 * with the 0 put back when 9 are left.
 */
const phoneDigits = (value: number | string) => {
  if (typeof value === 'string') return digitsOnly(value);
  if (!Number.isSafeInteger(value) || value < 0) return 'not a phone number';
  const digits = String(value);
  return digits.length === 9 ? `0${digits}` : digits;
};

/** The public reference: `name` required, pin a number, lower-case `email` and `abn`. */
const publicUpdate = z
  .object(
    {
      accountNumber,
      pin: number()
        .int({ error: 'must be a whole number 0-9999' })
        .min(0, { error: 'must be a whole number 0-9999' })
        .max(9999, { error: 'must be a whole number 0-9999' })
        .transform((pin) => String(pin).padStart(4, '0')),
      name,
      nickName,
      phone: numberOrText()
        .transform(phoneDigits)
        .pipe(z.string().regex(PHONE, { error: 'must be 0 followed by 9 digits' }))
        .optional(),
      email: email.optional(),
      options,
      abn: abn.optional(),
    },
    OBJECT_BODY,
  )
  .transform(({ email: lower, abn: lowerAbn, ...rest }) => ({
    ...rest,
    email: lower,
    abn: lowerAbn,
  }));

export const WALLET_UPDATE_SCHEMAS: Record<Dialect, z.ZodType<WalletUpdate>> = {
  any: walletUpdateSchema,
  interface: interfaceUpdate,
  public: publicUpdate,
};
