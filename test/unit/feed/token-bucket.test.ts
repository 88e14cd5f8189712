import { describe, expect, it } from 'vitest';
import { createTokenBucket } from '../../../src/feed/endpoint-relay/token-bucket.ts';

describe("an endpoint's rate limit (token bucket)", () => {
  it('when the second is used up, then no token until it refills at the rate, never above one second of them', () => {
    let at = 0;
    const bucket = createTokenBucket(4, () => at);
    expect(bucket.available()).toBe(4);
    bucket.take(4);
    expect(bucket.available()).toBe(0);
    expect(bucket.msUntilNext()).toBe(250);
    at = 250;
    expect(bucket.available()).toBe(1);
    at = 60_000;
    expect(bucket.available()).toBe(4);
  });

  it('when the rate is below one a second, then one token at a time, one every 1/rate seconds', () => {
    let at = 0;
    const bucket = createTokenBucket(0.5, () => at);
    expect(bucket.available()).toBe(1);
    bucket.take(1);
    expect(bucket.msUntilNext()).toBe(2000);
    at = 1999;
    expect(bucket.available()).toBe(0);
    at = 2000;
    expect(bucket.available()).toBe(1);
  });
});
