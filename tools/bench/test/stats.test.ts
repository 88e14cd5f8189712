import { describe, expect, it } from 'vitest';
import { percentile } from '../load.ts';
import { median } from '../summary.ts';

describe('percentile', () => {
  it('when asked for p50 and p99 of 1..100, then it gives the nearest-rank values', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
  });

  it('when there are no values, then it gives 0', () => {
    expect(percentile([], 99)).toBe(0);
  });
});

describe('median', () => {
  it('when the count is odd, then it is the middle value regardless of order', () => {
    expect(median([9, 1, 5])).toBe(5);
  });

  it('when the count is even, then it is the mean of the middle two', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});
