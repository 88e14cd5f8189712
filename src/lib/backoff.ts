/**
 * Exponential backoff with jitter, the one home for it. The wait before retry `attempt` (0 for
 * the first retry) is `firstMs` doubling up to `maxMs`, then a random part of up to half of it
 * taken off, so that instances that failed together (a fleet that lost an endpoint, consumers of
 * a platform that was down) do not come back in lock-step. Never more than `maxMs` and never
 * less than half a step, so a caller can promise how soon it tries again.
 *
 * `random` is a draw in [0, 1): 0 keeps the whole step, a draw near 1 halves it. Callers pass
 * `Math.random` in production and a fixed draw in tests.
 */
export function retryBackoffMs(
  attempt: number,
  firstMs: number,
  maxMs: number,
  random: () => number,
): number {
  // The exponent is capped so the power stays a finite number however long the outage lasts.
  const ceiling = Math.min(maxMs, firstMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling * (1 - random() / 2));
}
