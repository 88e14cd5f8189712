import { UsageError } from '../../lib/command-line/errors.ts';

/** Times as the feed's commands take them: an ISO 8601 time, or (for `--since`) a duration. */

const ISO_TIME =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** An ISO 8601 time (`2026-11-30`, `2026-11-30T09:00Z`), or undefined when `text` is none. */
function isoTime(text: string): Date | undefined {
  if (!ISO_TIME.test(text)) return undefined;
  const time = new Date(text);
  return Number.isNaN(time.getTime()) ? undefined : time;
}

/** `--since`: an ISO time, or a duration back from `now` (`90s`, `15m`, `1h`, `7d`). */
export function sinceTime(text: string, flag: string, now: number): Date {
  const duration = /^(\d{1,9})([smhd])$/.exec(text);
  if (duration)
    return new Date(now - Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS]);
  const time = isoTime(text);
  if (time) return time;
  throw new UsageError(
    `${flag} needs an ISO 8601 time or a duration like 90s, 15m, 1h, 7d (got ${text})`,
  );
}

/** A feed event id as printed (`evt_12`) or its digits; undefined when it is neither. */
export function eventIdOf(text: string | undefined): string | undefined {
  return /^(?:evt_)?(\d{1,18})$/.exec(text ?? '')?.[1];
}

/** Text from the other side (an answer's first bytes, an error) on one line, at most `max`. */
export function oneLine(text: string, max = 200): string {
  const flat = JSON.stringify(text).slice(1, -1);
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
