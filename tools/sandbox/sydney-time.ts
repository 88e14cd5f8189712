/**
 * The platform states every date-time as Sydney wall-clock time without a zone. These turn an
 * instant into that text; the report compares 14-digit stamps as text, which orders them in
 * time because every part is zero-padded.
 */
const FORMAT = new Intl.DateTimeFormat('en-AU', {
  timeZone: 'Australia/Sydney',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

interface WallClock {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
}

function sydneyParts(at: Date): WallClock {
  const parts: Record<string, string> = {};
  for (const part of FORMAT.formatToParts(at)) parts[part.type] = part.value;
  const get = (name: string) => parts[name] ?? '00';
  return {
    year: get('year'),
    month: get('month'),
    day: get('day'),
    hour: get('hour'),
    minute: get('minute'),
    second: get('second'),
  };
}

/** `2024-03-05T09:41:07` (Sydney), the webhook `DateTime` form. */
export function sydneyIso(at: Date): string {
  const p = sydneyParts(at);
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`;
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

/** `yyyy-MM-dd` (Sydney), the delivery report's day. */
export function sydneyDay(at: Date): string {
  return sydneyIso(at).slice(0, 10);
}

/** `11/14/2019 3:41:05 PM` (Sydney, US order), as the delivery report shows times. */
export function sydneyUsDateTime(at: Date): string {
  const p = sydneyParts(at);
  const hour = Number(p.hour);
  const twelve = hour % 12 === 0 ? 12 : hour % 12;
  return `${Number(p.month)}/${Number(p.day)}/${p.year} ${twelve}:${p.minute}:${p.second} ${hour < 12 ? 'AM' : 'PM'}`;
}

/** Whether 14 digits name a real calendar date-time (`20240230000000` does not). */
export function isValidStamp(stamp: string): boolean {
  const match = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(stamp);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year!, month! - 1, day));
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month! - 1 &&
    date.getUTCDate() === day &&
    hour! < 24 &&
    minute! < 60 &&
    second! < 60
  );
}
