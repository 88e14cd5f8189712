/**
 * The JSON Schema (draft 2020-12) vocabulary the catalogue writes: plain objects, so that the
 * catalogue is data a test can walk and the docs generator can print, with no schema library at
 * run time.
 */

export type JsonSchema = { readonly [keyword: string]: unknown };

/**
 * The named value kinds every event schema carries under `$defs` (docs/feed-catalogue.md), each
 * what the renderer (src/feed/render-events.ts) prints for a column of that kind.
 */
export const VALUE_KINDS = {
  money: {
    type: 'string',
    pattern: '^-?[0-9]+(\\.[0-9]+)?$',
    description:
      'An exact decimal amount as text ("10.5", "0.0001"): never a JSON number. Normally canonical (no trailing fractional zeros), at most 4 places.',
  },
  sydneyDateTime: {
    type: 'string',
    format: 'date-time',
    pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,6})?\\+1[01]:00$',
    description:
      'A provider date-time (Sydney wall-clock time) with the Sydney offset in force then, +10:00 or +11:00.',
  },
  instant: {
    type: 'string',
    format: 'date-time',
    pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$',
    description: 'An instant in UTC, to the millisecond.',
  },
  digits: {
    type: 'string',
    pattern: '^[0-9]+$',
    description: 'A whole number as decimal text (a bigint: beyond what a double holds exactly).',
  },
  text: { type: 'string' },
} as const satisfies Record<string, JsonSchema>;

export type ValueKind = keyof typeof VALUE_KINDS;

/** A reference to one of the value kinds, from anywhere in an event's schema. */
export function kind(name: ValueKind, description?: string): JsonSchema {
  return { $ref: `#/$defs/${name}`, ...(description === undefined ? {} : { description }) };
}

/** `schema` or null. */
export function nullable(schema: JsonSchema): JsonSchema {
  const { description, ...rest } = schema;
  return {
    ...(description === undefined ? {} : { description }),
    anyOf: [rest, { type: 'null' }],
  };
}

/** An object with these properties, every one of them always present (null where nullable). */
export function allPresent(
  properties: Readonly<Record<string, JsonSchema>>,
  description?: string,
): JsonSchema {
  return {
    type: 'object',
    ...(description === undefined ? {} : { description }),
    required: Object.keys(properties),
    properties,
  };
}
