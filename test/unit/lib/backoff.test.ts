import { describe, expect, it } from 'vitest';
import { retryBackoffMs } from '../../../src/lib/backoff.ts';

describe('exponential backoff with jitter', () => {
  it('when the draw is 0, then each wait is the whole step, doubling up to the cap', () => {
    const waits = [0, 1, 2, 3, 4, 5].map((attempt) => retryBackoffMs(attempt, 500, 5_000, () => 0));
    expect(waits).toEqual([500, 1_000, 2_000, 4_000, 5_000, 5_000]);
  });

  it('when the draw is near 1, then the wait is cut to half the step, never less', () => {
    expect(retryBackoffMs(0, 1_000, 60_000, () => 0.999_999)).toBe(500);
    expect(retryBackoffMs(10, 1_000, 60_000, () => 0.5)).toBe(45_000);
  });

  it('when an outage lasts thousands of attempts, then the wait stays the cap', () => {
    expect(retryBackoffMs(5_000, 10, 300_000, () => 0)).toBe(300_000);
  });
});
