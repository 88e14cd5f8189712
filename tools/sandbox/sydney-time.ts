import { formatWallClock, isRealWallClock, sydneyWallClockAt } from '../../src/lib/sydney-time.ts';

/**
 * The platform's text forms of a Sydney wall-clock time, as the sandbox writes them; the
 * conversion itself is src/lib/sydney-time.ts. The report compares 14-digit stamps as text,
 * which orders them in time because every part is zero-padded.
 */

/** `2024-03-05T09:41:07` (Sydney), the webhook `DateTime` form. */
export function sydneyIso(at: Date): string {
  return formatWallClock(sydneyWallClockAt(at.getTime(), '')).replace(' ', 'T');
}

/** `20240305094107` (Sydney), the report's `yyyyMMddHHmmss`. */
export function sydneyStamp(at: Date): string {
  return sydneyIso(at).replace(/\D/g, '');
}

/** The stamp of an ISO wall-clock text (`2024-03-05T09:41:07[.fff]`), or undefined. */
export function stampOfIso(text: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,7})?$/.exec(text);
  return match ? match.slice(1, 7).join('') : undefined;
}

/** `11/14/2019 3:41:05 PM` (Sydney, US order), as the delivery report shows times. */
export function sydneyUsDateTime(at: Date): string {
  const w = sydneyWallClockAt(at.getTime(), '');
  const twelve = w.hour % 12 === 0 ? 12 : w.hour % 12;
  const minute = String(w.minute).padStart(2, '0');
  const second = String(w.second).padStart(2, '0');
  return `${w.month}/${w.day}/${w.year} ${twelve}:${minute}:${second} ${w.hour < 12 ? 'AM' : 'PM'}`;
}

/** Whether 14 digits name a real calendar date-time (`20240230000000` does not). */
export function isValidStamp(stamp: string): boolean {
  const match = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(stamp);
  if (!match) return false;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = match
    .slice(1)
    .map(Number);
  // Years before 100 have always been refused here (Date.UTC read them as 19xx); kept so the
  // sandbox answers as before.
  return year >= 100 && isRealWallClock({ year, month, day, hour, minute, second, fraction: '' });
}
