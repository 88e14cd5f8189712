import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The `Authorisation` header: a shared secret echoed verbatim on every callback. Several secrets
 * may be configured at once so one can be rotated without refusing deliveries.
 *
 * Both sides are HMAC-ed with a key drawn per matcher before comparing: the digests have a fixed
 * length, so `timingSafeEqual` can compare them without the time taken revealing how long a
 * configured secret is or how much of it was guessed, and the random key means the digests are
 * useless outside this process. Every secret is compared, with no early exit, so the time taken
 * does not reveal which secret matched either.
 */

export type SecretMatcher = (presented: string | undefined) => boolean;

export function createSecretMatcher(secrets: readonly string[]): SecretMatcher {
  if (secrets.some((secret) => secret === '')) {
    // An empty secret would match an empty header; refusing it here beats a silent hole.
    throw new Error('an empty webhook secret is configured');
  }
  if (secrets.length === 0) {
    // No secret registered on the subscription: the check is skipped (signature still applies).
    return () => true;
  }
  const hmacKey = randomBytes(32);
  const digest = (value: string): Buffer =>
    createHmac('sha256', hmacKey).update(value, 'utf8').digest();
  const expected = secrets.map(digest);

  return (presented) => {
    if (presented === undefined || presented === '') return false;
    const actual = digest(presented);
    let matched = false;
    for (const candidate of expected) {
      // The comparison sits left of `||`, so it runs for every candidate whatever came before.
      matched = timingSafeEqual(actual, candidate) || matched;
    }
    return matched;
  };
}
