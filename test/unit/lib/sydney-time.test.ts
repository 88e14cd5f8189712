import { describe, expect, it } from 'vitest';
import {
  dayBefore,
  sydneyDay,
  sydneyIso,
  sydneyLocalIso,
  todayAndYesterday,
} from '../../../src/lib/sydney-time.ts';

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
});

describe("the platform's DateTime of an instant", () => {
  it.each([
    ['2023-08-11T04:19:16Z', '2023-08-11T14:19:16'], // winter: AEST, +10
    ['2024-03-04T22:41:07.999Z', '2024-03-05T09:41:07'], // summer: AEDT, +11; to the second
    // Daylight saving begins (2023-10-01): 02:00 AEST is 03:00 AEDT, the hour between is skipped.
    ['2023-09-30T15:59:59Z', '2023-10-01T01:59:59'],
    ['2023-09-30T16:00:00Z', '2023-10-01T03:00:00'],
    // It ends (2023-04-02): 03:00 AEDT is 02:00 AEST, the hour from 02:00 comes twice.
    ['2023-04-01T15:59:59Z', '2023-04-02T02:59:59'],
    ['2023-04-01T16:00:00Z', '2023-04-02T02:00:00'],
  ])('when the instant is %s, then the Sydney wall-clock time sent is %s', (instant, local) => {
    expect(sydneyLocalIso(Date.parse(instant))).toBe(local);
  });
});

describe('Sydney days', () => {
  it.each([
    // 13:59:59 UTC is 23:59:59 AEST; a second later it is the next Sydney day.
    ['2023-08-11T13:59:59Z', '2023-08-11'],
    ['2023-08-11T14:00:00Z', '2023-08-12'],
    // In summer (AEDT, +11) the Sydney day begins at 13:00 UTC.
    ['2023-01-11T12:59:59Z', '2023-01-11'],
    ['2023-01-11T13:00:00Z', '2023-01-12'],
  ])('when the instant is %s, then its Sydney day is %s', (instant, day) => {
    expect(sydneyDay(Date.parse(instant))).toBe(day);
  });

  it('when a day is the first of a month or year, then the day before is the last of the previous one', () => {
    expect(dayBefore('2024-03-01')).toBe('2024-02-29');
    expect(dayBefore('2023-03-01')).toBe('2023-02-28');
    expect(dayBefore('2024-01-01')).toBe('2023-12-31');
  });

  it('when asked for today and yesterday, then both are Sydney days, oldest first', () => {
    expect(todayAndYesterday(Date.parse('2024-01-01T00:30:00Z'))).toEqual([
      '2023-12-31',
      '2024-01-01',
    ]);
  });
});
