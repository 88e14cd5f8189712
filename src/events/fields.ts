import { z } from 'zod';
import { describeValue } from './describe-value.ts';
import { isAbsent } from './optional-string.ts';
import { accept, refuse, type Parsed } from './parsed.ts';

type FieldParser<T> = (value: unknown) => Parsed<T>;

/**
 * Zod field schemas built from the plain parsers, so each rule lives (and is tested) in one
 * place and zod only walks the body and collects every problem at once.
 */
export function required<T>(parse: FieldParser<T>) {
  return fieldSchema((value) => {
    if (value === undefined) return refuse('is required');
    if (isAbsent(value)) return refuse(`is required (got ${describeValue(value)})`);
    return parse(value);
  });
}

/** Absent, null and "" all become null; anything else must parse. */
export function optional<T>(parse: FieldParser<T>) {
  return fieldSchema((value): Parsed<T | null> => (isAbsent(value) ? accept(null) : parse(value)));
}

function fieldSchema<T>(parse: FieldParser<T>) {
  // `.optional()` lets the key be missing; the parser still runs and decides what that means.
  return z
    .unknown()
    .optional()
    .transform((value, ctx): T => {
      const result = parse(value);
      if (result.ok) return result.value;
      ctx.addIssue({ code: 'custom', message: result.reason, input: value });
      return z.NEVER;
    });
}
