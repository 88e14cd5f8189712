import { describe, expect, it } from 'vitest';
import { decideReuse, SEED_FORMAT, type CacheMarker } from '../stored/cache.ts';
import { walBytesBetween } from '../stored/database-facts.ts';

const marker: CacheMarker = {
  format: SEED_FORMAT,
  deliveries: 2_000_000,
  schema: 'abc',
  seededAt: '2026-11-24T00:00:00Z',
  commit: 'deadbee',
  templateDeliveries: 2000,
  seedSeconds: 200,
};
const wanted = { deliveries: 2_000_000, schema: 'abc' };

describe('decideReuse', () => {
  it('when the kept database holds the same deliveries under the same migrations, then it is reused', () => {
    expect(decideReuse({ exists: true, marker }, wanted, false)).toEqual({ reuse: true });
  });

  it.each([
    ['none is kept', { exists: false, marker: undefined }, false, /none/],
    ['--reseed is given', { exists: true, marker }, true, /--reseed/],
    [
      'an earlier seeding was cut short',
      { exists: true, marker: undefined },
      false,
      /never finished/,
    ],
    [
      'the migrations changed',
      { exists: true, marker: { ...marker, schema: 'def' } },
      false,
      /migrations/,
    ],
    [
      'the harness seeds differently now',
      { exists: true, marker: { ...marker, format: 0 } },
      false,
      /format/,
    ],
  ] as const)('when %s, then it is seeded again', (_case, found, reseed, reason) => {
    const decision = decideReuse(found, wanted, reseed);
    expect(decision.reuse).toBe(false);
    expect(decision.reuse === false && decision.reason).toMatch(reason);
  });
});

describe('walBytesBetween', () => {
  it('when the position crosses a 4 GB boundary, then the bytes between are counted across it', () => {
    expect(walBytesBetween('0/FFFFFF00', '1/00000100')).toBe(0x200);
    expect(walBytesBetween('16/B374D848', '16/B374D848')).toBe(0);
  });
});
