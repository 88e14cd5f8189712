import { sydneyWallClockAt } from '../events/wall-clock.ts';

/**
 * The platform's days are Sydney days (AEST/AEDT): its reports are asked for by Sydney date,
 * whatever zone this process runs in.
 */
export function sydneyDay(epochMs: number): string {
  const w = sydneyWallClockAt(epochMs, '');
  return `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
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
