/** Webhookid: 1-19 digits and within a signed 64-bit integer, since it is stored as bigint. */

const MAX_BIGINT = 9_223_372_036_854_775_807n;

export type WebhookIdCheck = { ok: true; value: string } | { ok: false; message: string };

export function parseWebhookId(header: string | undefined): WebhookIdCheck {
  if (header === undefined || header.trim() === '') {
    return { ok: false, message: 'Webhookid header is missing' };
  }
  const text = header.trim();
  if (!/^\d{1,19}$/.test(text)) {
    return { ok: false, message: 'Webhookid must be an integer of 1 to 19 digits' };
  }
  const value = BigInt(text);
  if (value > MAX_BIGINT) {
    return { ok: false, message: 'Webhookid is larger than 9223372036854775807' };
  }
  // Canonical decimal text: "007" and "7" are the same notification.
  return { ok: true, value: value.toString() };
}
