import { epochMsAtOffset, sydneyWallClockAt, type WallClock } from '../events/wall-clock.ts';

const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$/;

/** AEDT, then AEST: in the repeated hour at the end of daylight saving, the earlier instant. */
const SYDNEY_OFFSETS_MINUTES = [660, 600];

/**
 * A stored Sydney wall-clock time ("2023-08-11 14:19:16[.ffffff]", as Postgres prints a
 * `timestamp`) as ISO 8601 with the offset in force then: "2023-08-11T14:19:16+10:00". A time
 * in the hour skipped when daylight saving begins does not exist in Sydney; it gets +10:00.
 * Text that is not such a time is returned unchanged.
 */
export function sydneyIso(text: string): string {
  const m = WALL_CLOCK.exec(text);
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
