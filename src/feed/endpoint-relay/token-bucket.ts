/**
 * An endpoint's rate limit on this instance (rate_per_second; per instance, docs/feed.md): a
 * token bucket holding up to one second's worth (at least one token), refilled continuously.
 * The relay claims no more events than it holds tokens, so a claimed event is sent at once
 * rather than waiting on its lease.
 */
export interface TokenBucket {
  /** Whole tokens available now. */
  available(): number;
  take(count: number): void;
  /** How long until the next whole token (0 when one is there). */
  msUntilNext(): number;
}

export function createTokenBucket(
  perSecond: number,
  now: () => number = () => performance.now(),
): TokenBucket {
  const capacity = Math.max(1, perSecond);
  let tokens = capacity;
  let refilledAt = now();
  const refill = () => {
    const at = now();
    tokens = Math.min(capacity, tokens + ((at - refilledAt) / 1000) * perSecond);
    refilledAt = at;
  };
  return {
    available() {
      refill();
      return Math.floor(tokens);
    },
    take(count) {
      refill();
      tokens -= count;
    },
    msUntilNext() {
      refill();
      return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) / perSecond) * 1000);
    },
  };
}
