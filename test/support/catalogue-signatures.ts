import type { JsonSchema } from '../../src/feed/catalogue/json-schema.ts';

/**
 * What a consumer of an event type relies on, flattened: every property path of the body
 * (`data.fields.amount`) to a short signature of its type: a `$defs` kind (`money`), a JSON type,
 * `const:x`, `enum(a,b)`, with `|null` when it may be null and a leading `?` when it may be
 * absent. Objects and arrays list their own properties (`data.fields.reasons[].path`); each
 * `$defs` kind is listed under `$defs.<name>` with its type and pattern.
 */
export function schemaSignatures(schema: JsonSchema): Record<string, string> {
  const out: Record<string, string> = {};
  walk(schema, '', true, out);
  // The value kinds themselves: a kind's meaning is part of every field of that kind.
  for (const [name, kind] of Object.entries((schema.$defs ?? {}) as Record<string, JsonSchema>)) {
    out[`$defs.${name}`] = signature(kind);
  }
  return out;
}

function walk(
  schema: JsonSchema,
  path: string,
  required: boolean,
  out: Record<string, string>,
): void {
  const [inner, orNull] = unwrapNullable(schema);
  if (path !== '') out[path] = `${required ? '' : '?'}${signature(inner)}${orNull ? '|null' : ''}`;
  const properties = inner.properties as Record<string, JsonSchema> | undefined;
  const requiredNames = new Set((inner.required as string[] | undefined) ?? []);
  for (const [name, child] of Object.entries(properties ?? {})) {
    walk(child, path === '' ? name : `${path}.${name}`, requiredNames.has(name), out);
  }
  if (inner.items !== undefined) walk(inner.items as JsonSchema, `${path}[]`, true, out);
}

/** `{anyOf: [x, {type: 'null'}]}` as x, nullable. */
function unwrapNullable(schema: JsonSchema): [JsonSchema, boolean] {
  const anyOf = schema.anyOf as JsonSchema[] | undefined;
  const other = anyOf?.filter((s) => s.type !== 'null');
  if (anyOf?.length === 2 && other?.length === 1 && other[0] !== undefined) {
    return [other[0], true];
  }
  return [schema, false];
}

function signature(schema: JsonSchema): string {
  if (typeof schema.$ref === 'string') return schema.$ref.replace('#/$defs/', '');
  if ('const' in schema) return `const:${String(schema.const)}`;
  if (Array.isArray(schema.enum)) return `enum(${[...schema.enum].map(String).sort().join(',')})`;
  if (typeof schema.type === 'string') {
    return schema.pattern === undefined
      ? schema.type
      : `${schema.type} /${String(schema.pattern)}/`;
  }
  if (schema.anyOf !== undefined) throw new Error(`no signature for ${JSON.stringify(schema)}`);
  return 'any';
}
