import { describeValue } from '../../lib/describe-value.ts';
import { accept, refuse, type Parsed } from './parsed.ts';
import {
  epochMsAtOffset,
  formatWallClock,
  isRealWallClock,
  sydneyWallClockAt,
  type WallClock,
} from '../../lib/sydney-time.ts';

export interface ProviderDateTime {
  /** Sydney wall-clock time as "YYYY-MM-DD HH:MM:SS[.ffffff]". */
  local: string;
  /** The text exactly as the provider sent it. */
  text: string;
  /** Set when the value was read but something about it is worth a warning. */
  note?: string;
}

/**
 * The date-time forms one sender uses (contract vs published examples):
 * - ISO local, `2023-08-11T14:19:16` with an optional fraction (.NET ticks have 7 digits; any
 *   number is read and cut to microseconds), a space for the `T`, seconds optional.
 * - .NET en-AU, `20/10/2020 12:00:01 AM` (d/MM/yyyy h:mm:ss tt), or the same in 24-hour form
 *   without AM/PM (`11/08/2023 14:19:16`), seconds optional. Day, month and hour may have one
 *   or two digits, and am/pm any case: .NET on Linux (ICU) writes "am"/"pm".
 * - A date alone (`2023-08-11`, `11/08/2023`) is read as midnight, with a note saying so.
 *
 * None carries a zone: they are Sydney wall-clock time and are stored as such.
 *
 * An ISO value that does carry `Z` or an offset is accepted and converted to the Sydney
 * wall-clock time of that instant. The instant is unambiguous (the platform's card webhooks
 * send UTC "...Z" stamps), so converting is exact; the original text is kept beside it.
 */
const ISO_LOCAL =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const DOTNET_GENERAL =
  /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?: (\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?: ?([AP]M))?)?$/i;

const DATE_ONLY = 'has no time of day; stored as midnight, Sydney time';

const EXPECTED_FORMS = 'must be a date-time like "2023-08-11T14:19:16" or "20/10/2020 12:00:01 AM"';

interface Reading {
  wallClock: WallClock;
  dateOnly: boolean;
  /** Minutes east of UTC, or null when the text has no zone (the normal case). */
  offsetMinutes: number | null;
}

export function parseProviderDateTime(value: unknown): Parsed<ProviderDateTime> {
  if (typeof value !== 'string') return refuse(`${EXPECTED_FORMS} (got ${describeValue(value)})`);
  const text = value.trim();
  const reading = readIsoLocal(text) ?? readDotNetGeneral(text);
  if (reading === undefined) return refuse(`${EXPECTED_FORMS} (got ${describeValue(value)})`);
  if (!reading.ok) return refuse(`${reading.reason} (got ${describeValue(value)})`);

  const { wallClock, offsetMinutes, dateOnly } = reading.value;
  const sydney =
    offsetMinutes === null
      ? wallClock
      : sydneyWallClockAt(epochMsAtOffset(wallClock, offsetMinutes), wallClock.fraction);
  if (!isRealWallClock(sydney)) return refuse(`is out of range (got ${describeValue(value)})`);
  const local = formatWallClock(sydney);
  return accept(dateOnly ? { local, text: value, note: DATE_ONLY } : { local, text: value });
}

/** undefined: not this form at all; refused: this form, but not a real date-time. */
function readIsoLocal(text: string): Parsed<Reading> | undefined {
  const m = ISO_LOCAL.exec(text);
  if (m === null) return undefined;
  const [, year, month, day, hour, minute, second = '0', fraction = '', zone] = m;
  const wallClock: WallClock = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour ?? 0),
    minute: Number(minute ?? 0),
    second: Number(second),
    fraction,
  };
  const dateOnly = hour === undefined;
  if (!isRealWallClock(wallClock)) return refuse('is not a real date and time');
  if (zone === undefined) return accept({ wallClock, offsetMinutes: null, dateOnly });
  const offsetMinutes = readOffset(zone);
  if (offsetMinutes === null) return refuse('has an impossible zone offset');
  return accept({ wallClock, offsetMinutes, dateOnly });
}

function readDotNetGeneral(text: string): Parsed<Reading> | undefined {
  const m = DOTNET_GENERAL.exec(text);
  if (m === null) return undefined;
  const [, day, month, year, hourText, minute, second = '0', fraction = '', meridiem] = m;
  const hour = Number(hourText ?? 0);
  if (meridiem !== undefined && (hour < 1 || hour > 12)) {
    return refuse('has an hour outside 1-12 for an AM/PM time');
  }
  const isPm = meridiem?.toUpperCase() === 'PM';
  const wallClock: WallClock = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    // 12 AM is midnight (00), 12 PM is noon (12); without AM/PM the hour is 0-23.
    hour: meridiem === undefined ? hour : (hour % 12) + (isPm ? 12 : 0),
    minute: Number(minute ?? 0),
    second: Number(second),
    fraction,
  };
  if (!isRealWallClock(wallClock)) return refuse('is not a real date and time');
  return accept({ wallClock, offsetMinutes: null, dateOnly: hourText === undefined });
}

/** "Z", "+10", "+1000" or "+10:00" as minutes east of UTC; null when out of range. */
function readOffset(zone: string): number | null {
  if (zone.toUpperCase() === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || '0');
  if (hours > 23 || minutes > 59) return null;
  return sign * (hours * 60 + minutes);
}
