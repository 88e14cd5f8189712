import { z } from 'zod';
import { parseMoney } from '../../../lib/money.ts';

/**
 * Building blocks for reading the platform's answers leniently. Its published reference and
 * the interface document disagree on casing (`payIdName` / `PayIdName`, `Email` / `email`) and
 * on types (`transactionId` as number or text, booleans as `"true"`), and fields get added
 * over time. So: keys match case-insensitively, unknown keys pass through, scalars are accepted
 * in either form and normalised, and a value we cannot read becomes absent rather than failing
 * the whole answer, except where the caller cannot go on without it.
 */

/**
 * An object schema whose keys match the input's case-insensitively (first match wins); a matched
 * key is renamed to the schema's spelling, unknown keys pass through as sent.
 */
export function lenientObject<Shape extends z.ZodRawShape>(shape: Shape, aliases: Aliases = {}) {
  const known = Object.keys(shape);
  return z.preprocess((input) => remapKeys(input, known, aliases), z.looseObject(shape));
}

/** Other names for a key, e.g. `{ clientUniqueIdentifier: ['identifier'] }`. */
export type Aliases = Record<string, readonly string[]>;

function remapKeys(input: unknown, known: readonly string[], aliases: Aliases): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const source = input as Record<string, unknown>;
  const byLowerCase = new Map<string, string>();
  for (const key of Object.keys(source)) {
    if (!byLowerCase.has(key.toLowerCase())) byLowerCase.set(key.toLowerCase(), key);
  }
  const out: Record<string, unknown> = { ...source };
  for (const key of known) {
    if (key in source) continue;
    const names = [key, ...(aliases[key] ?? [])];
    // An exact spelling first: the public PayID answer carries both the envelope's `status` and
    // the PayID's `Status`, which only their case tells apart.
    const found =
      names.find((name) => name in source) ??
      names.map((name) => byLowerCase.get(name.toLowerCase())).find((name) => name !== undefined);
    if (found !== undefined) {
      out[key] = source[found];
      delete out[found];
    }
  }
  return out;
}

const absentIfUnreadable = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

/** Text, or a number shown as text; `null`, `""` and anything else: absent. */
export const text = absentIfUnreadable(
  z.preprocess(
    (v) => (typeof v === 'number' || typeof v === 'bigint' ? String(v) : v === '' ? undefined : v),
    z.string().optional(),
  ),
);

/** A decimal amount (number or text) as a canonical decimal string; absent when unreadable. */
export const money = absentIfUnreadable(
  z.unknown().transform((value, ctx) => {
    if (value === undefined || value === null || value === '') return undefined;
    const parsed = parseMoney(value);
    if (parsed.ok) return parsed.value;
    ctx.addIssue({ code: 'custom', message: `amount ${parsed.reason}` });
    return z.NEVER;
  }),
);

/** `true` / `false` as JSON booleans or text in any case. */
export const flag = absentIfUnreadable(
  z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
    z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).optional(),
  ),
);

/** A whole number (JSON number or digit text), kept as a number. */
export const count = absentIfUnreadable(
  z.preprocess(
    (v) => (typeof v === 'string' && /^\d{1,15}$/.test(v.trim()) ? Number(v) : v),
    z.number().int().optional(),
  ),
);

/** An array of some lenient element; an element that does not parse is dropped, not fatal. */
export function listOf<T extends z.ZodType>(element: T) {
  return absentIfUnreadable(z.array(z.unknown())).transform((items) =>
    (items ?? []).flatMap((item) => {
      const parsed = element.safeParse(item);
      return parsed.success ? [parsed.data] : [];
    }),
  );
}
