import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the signed content is
 * `<webhook-id>.<webhook-timestamp>.<body>`, HMAC-SHA256 keyed with the secret's bytes (the
 * base64 after `whsec_`), sent as `v1,<base64>`. Several secrets (a rotation) give several
 * signatures, space-separated, any of which a consumer may verify.
 */

export const SECRET_PREFIX = 'whsec_';

/** Spec: secrets of 24 to 64 random bytes. */
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;

/** The key bytes of a `whsec_<base64>` secret, or a reason it is not one. */
export function parseWebhookSecret(text: string): Buffer | string {
  if (!text.startsWith(SECRET_PREFIX)) return `must start with ${SECRET_PREFIX}`;
  const encoded = text.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    return `must be ${SECRET_PREFIX} followed by base64`;
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES) {
    return `must hold ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes (base64 after ${SECRET_PREFIX})`;
  }
  return key;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The three headers for one attempt at sending `body` (the exact bytes to be POSTed). */
export function signWebhook(
  keys: readonly Buffer[],
  id: string,
  at: Date,
  body: string,
): SignedHeaders {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const content = `${id}.${timestamp}.${body}`;
  const signatures = keys.map(
    (key) => `v1,${createHmac('sha256', key).update(content, 'utf8').digest('base64')}`,
  );
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': signatures.join(' '),
  };
}
