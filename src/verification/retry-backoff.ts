/**
 * The wait before background fetch attempt `attempt` (0-based) while no key is held: `firstMs`
 * doubling up to `maxMs`, then a random part of it taken off (up to half), so a fleet of receivers
 * that lost the endpoint together does not come back in lock-step. Never more than `maxMs`, so
 * readiness returns within `maxMs` (plus one fetch) of the endpoint coming back.
 */
export function retryBackoffMs(
  attempt: number,
  firstMs: number,
  maxMs: number,
  random: () => number,
): number {
  const ceiling = Math.min(maxMs, firstMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling * (1 - random() / 2));
}
