/** A calendar date and time of day with no zone, as read from the provider's text. */
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

/** Sydney's wall-clock time at an instant (AEST or AEDT, whichever was in force then). */
export function sydneyWallClockAt(epochMs: number, fraction: string): WallClock {
  // Built per call: cheap at one date-time per record, and keeps the module free of shared state.
  const parts = new Intl.DateTimeFormat('en-AU', {
    timeZone: 'Australia/Sydney',
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(epochMs));
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
