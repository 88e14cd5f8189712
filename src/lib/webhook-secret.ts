/**
 * Standard Webhooks secrets (https://www.standardwebhooks.com): `whsec_` followed by the base64
 * of 24 to 64 random bytes. Parsed here, in lib/, because the configuration checks them at start
 * and the feed's signer keys its HMAC with them.
 */

const SECRET_PREFIX = 'whsec_';

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
