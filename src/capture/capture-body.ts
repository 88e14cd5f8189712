/**
 * The body of a captured delivery is held as exactly one of `body` (UTF-8 text that round-trips
 * to the same bytes) or `bodyBase64` (anything else), so every byte sequence has one spelling.
 */

export type BodyField = { body: string } | { bodyBase64: string };

/** True when decoding as UTF-8 and encoding again gives back exactly these bytes. */
export function isUtf8Text(bytes: Buffer): boolean {
  return Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}

/** The field a writer uses for these bytes: `body` whenever it can, else `bodyBase64`. */
export function bodyField(bytes: Buffer): BodyField {
  return isUtf8Text(bytes)
    ? { body: bytes.toString('utf8') }
    : { bodyBase64: bytes.toString('base64') };
}

/** The exact bytes a captured delivery holds. */
export function bodyBytes(capture: { body?: string; bodyBase64?: string }): Buffer {
  if (capture.body !== undefined) return Buffer.from(capture.body, 'utf8');
  return Buffer.from(capture.bodyBase64 ?? '', 'base64');
}

// Invisible in an editor: C1 controls and DEL, soft hyphen, Arabic letter mark, Mongolian vowel
// separator, zero-width and bidi marks, line/paragraph separators, word joiners, the BOM.
const INVISIBLE = /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g;

/**
 * Writes invisible characters in JSON text as \uXXXX so a reader sees them. Only valid on JSON
 * text, where such characters can only occur inside strings; the parsed value is unchanged.
 */
export function escapeInvisibleCharacters(jsonText: string): string {
  return jsonText.replace(
    INVISIBLE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
