/**
 * JSON text with some parts kept exactly as Postgres wrote them: a stored payload's numbers
 * (`10.123456789012345678`) would be rounded by a JSON.parse/JSON.stringify round trip.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

export type JsonValue =
  | string
  | number
  | boolean
  | null
  | RawJson
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

export function jsonText(value: JsonValue): string {
  if (value instanceof RawJson) return value.text;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item: JsonValue) => jsonText(item)).join(',')}]`;
  const entries = Object.entries(value as { readonly [key: string]: JsonValue });
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${jsonText(item)}`).join(',')}}`;
}
