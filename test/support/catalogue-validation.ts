import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FeedCatalogue } from '../../src/feed/catalogue/catalogue.ts';
import type { JsonSchema } from '../../src/feed/catalogue/json-schema.ts';

/**
 * The catalogue closed: every object that lists its properties refuses any other. The published
 * schemas are open (a consumer ignores what it does not know, docs/feed-catalogue.md); the tests
 * validate closed so that a field the feed renders and the catalogue does not describe fails.
 */
function closedSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closedSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // `const` and `enum` hold values, not schemas.
    out[key] = key === 'const' || key === 'enum' ? value : closedSchema(value);
  }
  if ('properties' in out && !('additionalProperties' in out)) out.additionalProperties = false;
  return out;
}

export type EventValidator = (event: unknown) => readonly ErrorObject[];

/**
 * A validator per event type (ajv 8, draft 2020-12, formats checked): the errors for an event,
 * none when it is valid. `closed` validates against closedSchema.
 */
export function catalogueValidators(
  catalogue: FeedCatalogue,
  { closed }: { closed: boolean },
): ReadonlyMap<string, EventValidator> {
  // Strict, but `required` may name what a sibling `properties` defines (data's oneOf).
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  addFormats.default(ajv);
  return new Map(
    Object.entries(catalogue.types).map(([type, schema]) => {
      const validate = ajv.compile((closed ? closedSchema(schema) : schema) as JsonSchema);
      return [type, (event: unknown) => (validate(event) ? [] : (validate.errors ?? []))];
    }),
  );
}
