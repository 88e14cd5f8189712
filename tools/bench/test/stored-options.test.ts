import { describe, expect, it } from 'vitest';
import { parseDeliveryCount, parseOptions, UsageError } from '../core/options.ts';

describe('parseDeliveryCount', () => {
  it.each([
    ['2m', 2_000_000],
    ['200k', 200_000],
    ['1.5M', 1_500_000],
    ['50000', 50_000],
    ['2_000_000', 2_000_000],
    ['2,000,000', 2_000_000],
    [' 20K ', 20_000],
  ])('when given %s, then it reads %d deliveries', (raw, expected) => {
    expect(parseDeliveryCount(raw)).toBe(expected);
  });

  it.each(['', 'abc', '2g', '1.5', '0.0001k', '-5', '2mm', '1e6'])(
    'when given %j, then it is not a number of deliveries',
    (raw) => {
      expect(parseDeliveryCount(raw)).toBeUndefined();
    },
  );
});

describe('parseOptions with --stored', () => {
  it('when --stored is given, then the receiver alone is measured, with the idle window default', () => {
    expect(parseOptions(['--stored', '2m'], {})).toMatchObject({
      stored: 2_000_000,
      only: ['receiver'],
      reseed: false,
      idleDuration: 30,
    });
    expect(parseOptions(['--stored=20k', '--reseed', '--idle-duration=5'], {})).toMatchObject({
      stored: 20_000,
      reseed: true,
      idleDuration: 5,
    });
  });

  it('when --stored is not given, then nothing is seeded', () => {
    expect(parseOptions([], {})).toMatchObject({ stored: undefined, reseed: false });
  });

  it('when --stored is out of range or not a count, then a usage error names it', () => {
    expect(() => parseOptions(['--stored=0'], {})).toThrow(/--stored/);
    expect(() => parseOptions(['--stored=51m'], {})).toThrow(/--stored/);
    expect(() => parseOptions(['--stored=lots'], {})).toThrow(UsageError);
  });

  it('when flags that only go with --stored come without it, or others with it, then it refuses', () => {
    expect(() => parseOptions(['--reseed'], {})).toThrow(/--stored/);
    expect(() => parseOptions(['--idle-duration=5'], {})).toThrow(/--stored/);
    expect(() => parseOptions(['--stored=1k', '--only=bare'], {})).toThrow(/--only/);
    expect(() => parseOptions(['--stored=1k', '--profile'], {})).toThrow(/--profile/);
  });
});
