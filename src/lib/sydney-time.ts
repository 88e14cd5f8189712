/**
 * Sydney wall-clock time, the one home for it. The platform states every date-time as Sydney
 * local time without a zone and counts its days as Sydney days (AEST, UTC+10, or AEDT, UTC+11,
 * whichever is in force), whatever zone this process runs in. Everything here takes its inputs
 * as parameters and keeps no state: the zone rules come from the runtime's Intl data.
 */

/** A calendar date and time of day with no zone. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** Fraction-of-second digits exactly as sent ("" when none), not yet truncated. */
  fraction: string;
}

/** Postgres keeps microseconds: more digits are cut, never rounded (rounding could roll the second). */
const MAX_FRACTION_DIGITS = 6;

/** Real calendar dates only: no 31/02, 29/02 only in leap years, no hour 24 or leap second. */
export function isRealWallClock(w: WallClock): boolean {
  return (
    w.year >= 1 &&
    w.month >= 1 &&
    w.month <= 12 &&
    w.day >= 1 &&
    w.day <= daysInMonth(w.year, w.month) &&
    w.hour <= 23 &&
    w.minute <= 59 &&
    w.second <= 59
  );
}

/** "YYYY-MM-DD HH:MM:SS[.ffffff]": a literal Postgres reads as `timestamp` in any DateStyle. */
export function formatWallClock(w: WallClock): string {
  const date = `${pad(w.year, 4)}-${pad(w.month, 2)}-${pad(w.day, 2)}`;
  const time = `${pad(w.hour, 2)}:${pad(w.minute, 2)}:${pad(w.second, 2)}`;
  const fraction = w.fraction.slice(0, MAX_FRACTION_DIGITS);
  return fraction === '' ? `${date} ${time}` : `${date} ${time}.${fraction}`;
}

/** The instant a wall-clock time denotes at a fixed offset east of UTC. */
export function epochMsAtOffset(w: WallClock, offsetMinutes: number): number {
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0-99 to 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(w.year, w.month - 1, w.day);
  date.setUTCHours(w.hour, w.minute, w.second, 0);
  return date.getTime() - offsetMinutes * 60_000;
}

/**
 * Sydney's calendar fields at an instant. Made once: building an Intl.DateTimeFormat costs
 * about 150 µs (the zone's rules are loaded each time), formatting with one a few µs, and the
 * feed renders every wall-clock column through here (twice per value). A formatter is
 * immutable, so this constant shares no state between callers.
 */
const SYDNEY_FIELDS = new Intl.DateTimeFormat('en-AU', {
  timeZone: 'Australia/Sydney',
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
});

/** Sydney's wall-clock time at an instant (AEST or AEDT, whichever was in force then). */
export function sydneyWallClockAt(epochMs: number, fraction: string): WallClock {
  const parts = SYDNEY_FIELDS.formatToParts(new Date(epochMs));
  const field = (type: Intl.DateTimeFormatPartTypes): number =>
    Number(parts.find((part) => part.type === type)?.value);
  return {
    year: field('year'),
    month: field('month'),
    day: field('day'),
    hour: field('hour'),
    minute: field('minute'),
    second: field('second'),
    fraction,
  };
}

const STORED_WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$/;

/** AEDT, then AEST: in the repeated hour at the end of daylight saving, the earlier instant. */
const SYDNEY_OFFSETS_MINUTES = [660, 600];

/**
 * A stored Sydney wall-clock time ("2023-08-11 14:19:16[.ffffff]", as Postgres prints a
 * `timestamp`) as ISO 8601 with the offset in force then: "2023-08-11T14:19:16+10:00". A time
 * in the hour skipped when daylight saving begins does not exist in Sydney; it gets +10:00.
 * Text that is not such a time is returned unchanged.
 */
export function sydneyIso(text: string): string {
  const m = STORED_WALL_CLOCK.exec(text);
  if (!m) return text;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const w: WallClock = {
    year: year ?? 0,
    month: month ?? 0,
    day: day ?? 0,
    hour: hour ?? 0,
    minute: minute ?? 0,
    second: second ?? 0,
    fraction: m[7] ?? '',
  };
  const offset =
    SYDNEY_OFFSETS_MINUTES.find((minutes) =>
      sameWallClock(sydneyWallClockAt(epochMsAtOffset(w, minutes), ''), w),
    ) ?? 600;
  const fraction = w.fraction === '' ? '' : `.${w.fraction}`;
  const sign = `+${String(offset / 60).padStart(2, '0')}:00`;
  return `${text.slice(0, 10)}T${text.slice(11, 19)}${fraction}${sign}`;
}

/**
 * The platform's own DateTime form of an instant: Sydney wall-clock time in ISO 8601 without a
 * zone, to the second ("2024-03-05T09:41:07").
 */
export function sydneyLocalIso(epochMs: number): string {
  return formatWallClock(sydneyWallClockAt(epochMs, '')).replace(' ', 'T');
}

/** The Sydney day (YYYY-MM-DD) of an instant: the platform's reports are asked for by it. */
export function sydneyDay(epochMs: number): string {
  const w = sydneyWallClockAt(epochMs, '');
  return `${w.year}-${pad(w.month, 2)}-${pad(w.day, 2)}`;
}

/** The calendar day before `day` (YYYY-MM-DD); calendar arithmetic, no zone involved. */
export function dayBefore(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - 1);
  return date.toISOString().slice(0, 10);
}

/** Today and yesterday, Sydney days, oldest first. */
export function todayAndYesterday(epochMs: number): string[] {
  const today = sydneyDay(epochMs);
  return [dayBefore(today), today];
}

function sameWallClock(a: WallClock, b: WallClock): boolean {
  return (
    a.year === b.year &&
    a.month === b.month &&
    a.day === b.day &&
    a.hour === b.hour &&
    a.minute === b.minute &&
    a.second === b.second
  );
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}
