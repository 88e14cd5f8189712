import { createHash, randomBytes } from 'node:crypto';

/**
 * An endpoint's signing secrets as operators handle them: made here when none is given, and
 * named by a fingerprint (never printed whole after the once it is made or given).
 */

/** A new Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * What `endpoints show` prints for a secret: the first 8 hex digits of its sha256, enough to
 * tell two apart and to match the consumer's copy (`printf %s whsec_… | sha256sum`), nothing
 * to sign with.
 */
export function secretFingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 8);
}
