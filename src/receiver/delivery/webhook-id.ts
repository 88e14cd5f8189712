/** Webhookid: 1-19 digits and within a signed 64-bit integer, since it is stored as bigint. */

const MAX_BIGINT = 9_223_372_036_854_775_807n;

export type WebhookIdCheck = { ok: true; value: string } | { ok: false; message: string };

export function parseWebhookId(header: string | undefined): WebhookIdCheck {
  // Only HTTP's own whitespace (space, tab) is trimmed: String.trim would also take U+00A0,
  // U+2007, U+3000 and the like, which make the header malformed rather than a valid id.
  const text = header?.replace(/^[ \t]+|[ \t]+$/g, '');
  if (text === undefined || text === '') {
    return { ok: false, message: 'Webhookid header is missing' };
  }
  if (!/^[0-9]{1,19}$/.test(text)) {
    return { ok: false, message: 'Webhookid must be an integer of 1 to 19 digits' };
  }
  // Up to 18 digits always fits, and without a leading zero it is canonical already.
  if (text.length < 19 && text.charCodeAt(0) !== 0x30) return { ok: true, value: text };
  const value = BigInt(text);
  if (value > MAX_BIGINT) {
    return { ok: false, message: 'Webhookid is larger than 9223372036854775807' };
  }
  // Canonical decimal text: "007" and "7" are the same notification.
  return { ok: true, value: value.toString() };
}
