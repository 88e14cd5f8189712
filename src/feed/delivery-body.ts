import { isPostgresSafeValue } from '../lib/database/postgres-text.ts';
import { RawJson, type JsonValue } from './json-text.ts';

/** A delivery's body as the feed reads it from webhook_deliveries. */
export interface StoredBody {
  /** jsonb text: only rows written before the body was stored once (2026-11-24T09). */
  payload: string | null;
  /** The exact bytes received; null once retention pruned the raw request. */
  raw_body: Buffer | null;
}

const UTF8_BOM = '\uFEFF';

/**
 * How a delivery's body appears in its feed events: `payload`, the JSON as the platform sent it
 * (every number as written, keys in the sender's order); `payloadBase64`, the exact bytes, for
 * a body whose JSON a strict parser could refuse (a NUL or a lone surrogate in a string, a
 * number no double or numeric holds: the bodies the jsonb copy could not hold either); and a
 * null `payload` once the raw request was pruned.
 *
 * The receiver parsed the same text before storing it, so the parse here cannot fail for a row
 * it wrote; it is kept because embedding unchecked text would corrupt the whole envelope.
 */
export function feedBody(
  stored: StoredBody | undefined,
): { payload: JsonValue } | { payloadBase64: string } {
  if (stored?.payload != null) return { payload: new RawJson(stored.payload) };
  if (stored?.raw_body == null) return { payload: null };
  let text = stored.raw_body.toString('utf8');
  if (text.startsWith(UTF8_BOM)) text = text.slice(1);
  try {
    if (isPostgresSafeValue(JSON.parse(text))) return { payload: new RawJson(text) };
  } catch {
    // Not JSON: fall through to the bytes.
  }
  return { payloadBase64: stored.raw_body.toString('base64') };
}
