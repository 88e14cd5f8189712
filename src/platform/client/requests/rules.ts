import { z } from 'zod';
import { ProviderError, type FieldError } from '../protocol/provider-error.ts';

/**
 * Shared field rules of the interface document, and the check every request passes before it
 * is sent: a request the platform would refuse is refused here, field by field, without using
 * a call (or, for a sign-in, a lock-out strike).
 */

export function pattern(regex: RegExp, what: string) {
  return z.string({ error: `must be ${what}` }).regex(regex, `must be ${what}`);
}

export function digits(min: number, max: number = min) {
  const what = min === max ? `exactly ${min} digits` : `${min}-${max} digits`;
  return pattern(new RegExp(`^\\d{${min},${max}}$`), what);
}

/** The PayID email shape: 1-64 of letters, digits, . _ % + - then dot-separated domain labels. */
export const payIdEmail = pattern(
  /^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})*$/,
  'a PayID email (name@domain)',
);

/** `0` followed by 9 digits, after spaces, hyphens and brackets are removed. */
export const phone = z
  .string({ error: 'must be a phone number' })
  .transform((value) => value.replace(/[\s()-]/g, ''))
  .pipe(pattern(/^0\d{9}$/, '0 followed by 9 digits'));

/** A decimal amount of dollars and cents, more than zero, as text (money is never a float). */
export const positiveAmount = pattern(
  /^(?!0+(\.0+)?$)\d{1,15}(\.\d{1,2})?$/,
  'an amount more than 0 with at most 2 decimal places, e.g. 12.50',
);

/** A real calendar date, `YYYY-MM-DD`. */
export const isoDate = pattern(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD').refine(
  (value) => new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
  'must be a real calendar date',
);

/** Parses `input` with `schema`, or throws an `invalid-request` error naming every bad field. */
export function checkRequest<T extends z.ZodType>(
  endpoint: string,
  schema: T,
  input: unknown,
): z.output<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ProviderError({
    endpoint,
    kind: 'invalid-request',
    statusDescription: 'request refused before sending',
    fieldErrors: parsed.error.issues.map(toFieldError),
  });
}

/** "refundAmount must be …", "options[0].key must be …"; "The request …" for the whole body. */
function toFieldError(issue: z.core.$ZodIssue): FieldError {
  const path = issue.path
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`))
    .join('');
  const message =
    issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
  return { path, message: `${path === '' ? 'The request' : path} ${message}` };
}
