import { z } from 'zod';

/** The field rules of the interface (sections 2 and 4), one place each. */

/** PayID email shape: 1-64 of letters, digits, . _ % + - before @, then dot-separated labels. */
export const PAY_ID = /^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})*$/;
export const PAY_ID_NAME = /^[A-Za-z0-9 &.,'-]{1,140}$/;
export const BANK_ACCOUNT = /^\d{6,10}$/;
export const LEDGER_REFERENCE = /^[A-Za-z0-9._-]{1,50}$/;
export const WALLET_ACCOUNT = /^\d{16}$/;
export const WALLET_IDENTIFIER = /^[A-Za-z0-9@._+\- ]{1,300}$/;
export const PERSON_NAME = /^[A-Za-z0-9 '\-.]{1,100}$/;
export const NICK_NAME = /^[A-Za-z0-9 '\-.]{0,50}$/;
export const PHONE = /^0\d{9}$/;
export const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
export const ABN = /^\d{11}$/;
export const OPTION_KEY = /^[A-Za-z0-9_]{1,50}$/;
export const REPORT_STAMP = /^\d{14}$/;

export const digitsOnly = (text: string) => text.replace(/\D/g, '');

/** A string field with a pattern, and a message that says the rule rather than the regex. */
export const patterned = (pattern: RegExp, rule: string) =>
  z.string({ error: `must be text: ${rule}` }).regex(pattern, { error: `must be ${rule}` });

/** Digits after stripping everything else (phone, ABN), then checked against `pattern`. */
export const strippedDigits = (pattern: RegExp, rule: string) =>
  z
    .string({ error: `must be text: ${rule}` })
    .max(300, { error: 'must be at most 300 characters' })
    .transform(digitsOnly)
    .pipe(z.string().regex(pattern, { error: `must be ${rule} (non-digits are ignored)` }));

export const email = z
  .string({ error: 'must be text: an email address' })
  .max(300, { error: 'must be at most 300 characters' })
  .regex(EMAIL, { error: 'must be an email address (with @)' })
  .transform((text) => text.toLowerCase());

/** Turns zod's issues into "field: message" lines, the form every error answer uses. */
function problemsOf(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const where = issue.path.map(String).join('.');
    return where === '' ? issue.message : `${where}: ${issue.message}`;
  });
}

export type Validated<T> = { ok: true; value: T } | { ok: false; problems: string[] };

export function validate<S extends z.ZodType>(schema: S, input: unknown): Validated<z.output<S>> {
  const result = schema.safeParse(input);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, problems: problemsOf(result.error) };
}
