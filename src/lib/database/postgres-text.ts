/**
 * Postgres cannot keep a NUL character in text or jsonb, nor an unpaired UTF-16 surrogate in
 * jsonb. JSON can carry both (`\u0000`, `\ud800`), so a signed body may hold them; a write that
 * fails on them would answer 500 forever and lose the delivery. These checks let the caller
 * choose a safe path (raw bytes only, or quarantine) instead.
 */

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Deeper than this, Postgres' own jsonb parser may run out of stack: treat as unsafe. */
const MAX_DEPTH = 500;

function isPostgresSafeText(text: string): boolean {
  return !text.includes('\u0000') && !UNPAIRED_SURROGATE.test(text);
}

/** True when every string (keys included) in a parsed JSON value can be stored by Postgres. */
export function isPostgresSafeValue(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return isPostgresSafeText(value);
  // JSON.parse turns a number beyond a double's range into Infinity; Postgres' numeric may not
  // hold it either (from 1e131072). Out-of-range tiny numbers and absurdly long fractions are
  // caught by the store's fallback, which retries such a delivery without its jsonb payload.
  if (typeof value === 'number') return Number.isFinite(value);
  if (value === null || typeof value !== 'object') return true;
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.every((item) => isPostgresSafeValue(item, depth + 1));
  // A loop rather than Object.entries: every delivery's body passes here, and the pairs it
  // would allocate are garbage at once. JSON.parse makes plain objects (own keys only).
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!isPostgresSafeText(key) || !isPostgresSafeValue(record[key], depth + 1)) return false;
  }
  return true;
}

/** For text we write ourselves (reasons, descriptions): replace what Postgres would refuse. */
export function toPostgresSafeText(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD').toWellFormed();
}
