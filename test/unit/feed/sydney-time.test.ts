import { describe, expect, it } from 'vitest';
import { sydneyIso } from '../../../src/feed/sydney-time.ts';
import { isoInstant } from '../../../src/feed/render-events.ts';

describe('Sydney wall-clock times in the feed', () => {
  it.each([
    ['2023-08-11 14:19:16', '2023-08-11T14:19:16+10:00'], // winter: AEST
    ['2023-01-11 14:19:16.123456', '2023-01-11T14:19:16.123456+11:00'], // summer: AEDT
    ['2023-04-02 02:30:00', '2023-04-02T02:30:00+11:00'], // repeated hour: the earlier instant
    ['2023-10-01 02:30:00', '2023-10-01T02:30:00+10:00'], // skipped hour: does not exist
    ['not a time', 'not a time'],
  ])('when the stored time is %s, then the feed says %s', (stored, expected) => {
    expect(sydneyIso(stored)).toBe(expected);
  });

  it('when Postgres prints an instant in another session zone, then the feed gives it in UTC', () => {
    expect(isoInstant('2026-11-22 14:35:11.329+11')).toBe('2026-11-22T03:35:11.329Z');
    expect(isoInstant('2026-11-22 03:35:11+05:30')).toBe('2026-11-21T22:05:11.000Z');
  });
});
