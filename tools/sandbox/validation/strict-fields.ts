import { z } from 'zod';

/**
 * Field types for the strict dialects, whose 400s name the field and say only what is wrong:
 * `name: is required` when it is absent, `refundAmount: must be text` when it came as another
 * JSON type, and the field's rule when the value breaks it. No coercion: a JSON number is
 * never read as text or the other way round, as a typed .NET model would not.
 */
const typed =
  (wrong: string): z.core.$ZodErrorMap =>
  (issue) =>
    issue.input === undefined ? 'is required' : wrong;

export const OBJECT_BODY = { error: 'the body must be a JSON object' };

/** A JSON string. */
export const text = () => z.string({ error: typed('must be text') });

/** A JSON string of 1-`max` characters. */
export const limitedText = (max: number) =>
  text()
    .min(1, { error: `must be 1-${max} characters` })
    .max(max, { error: `must be 1-${max} characters` });

/** A JSON string matching `pattern`; `rule` says it in words. */
export const patternedText = (pattern: RegExp, rule: string) =>
  text().regex(pattern, { error: `must be ${rule}` });

/** A JSON number. */
export const number = () => z.number({ error: typed('must be a number') });

/** A JSON number or a JSON string, each read by its own rule. */
export const numberOrText = () =>
  z.union([z.number(), z.string()], { error: typed('must be a number or text') });
