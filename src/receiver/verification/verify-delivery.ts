import type { SigningKey, SigningKeySource } from './key-source.ts';
import { decodeSignature, verifySignature } from './signature.ts';

/**
 * Check 4 of the design: does `Verification-Signature` verify over the raw body? A failure with
 * a key that may be stale gives the key source one chance to fetch a rotated key, and the
 * signature is then tried once more, so a yearly key rotation costs no deliveries. When the key
 * could not be re-checked just now (`key-unconfirmed`), the answer must be a 503, not a 401: the
 * platform never retries a 401, and its retry 30 s later is checked against a fresh key.
 */

export type SignatureCheck =
  | { ok: true; key: SigningKey }
  | { ok: false; reason: 'missing-signature' | 'malformed-signature' | 'mismatch' }
  | { ok: false; reason: 'no-key' | 'key-unconfirmed' };

export async function checkSignature(
  rawBody: Buffer,
  signatureHeader: string | undefined,
  keys: SigningKeySource,
): Promise<SignatureCheck> {
  // A header that cannot be a signature is refused before any key fetch, so junk traffic
  // cannot make us call the platform.
  if (signatureHeader === undefined || signatureHeader.trim() === '') {
    return { ok: false, reason: 'missing-signature' };
  }
  const signature = decodeSignature(signatureHeader);
  if (signature === undefined) return { ok: false, reason: 'malformed-signature' };

  const key = keys.current() ?? (await keys.ensure());
  // Not the sender's fault: the app answers 503 so the platform retries.
  if (key === undefined) return { ok: false, reason: 'no-key' };
  if (verifySignature(rawBody, signature, key.key)) return { ok: true, key };

  const refreshed = await keys.refreshAfterFailure(key);
  if (refreshed === 'unconfirmed') return { ok: false, reason: 'key-unconfirmed' };
  if (refreshed !== undefined && verifySignature(rawBody, signature, refreshed.key)) {
    return { ok: true, key: refreshed };
  }
  return { ok: false, reason: 'mismatch' };
}
