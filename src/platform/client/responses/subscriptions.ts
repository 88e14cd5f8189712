import { z } from 'zod';
import { count, lenientObject, text } from './lenient.ts';

/** Answer to a subscription create: the envelope, and the subscription's id when given. */
export const createSubscriptionResponse = lenientObject(
  { subscriptionId: text, id: text },
  { subscriptionId: ['webhookSubscriptionId'] },
);

/**
 * One notification of the delivery report. `dateTime` is US order and Sydney wall-clock
 * ("11/14/2019 3:41:05 PM"); `webhookId` is an int64 and read as text (never a double).
 * Whether recovery can act on a row is `usableNotification`'s call, row by row.
 */
const reportedNotification = lenientObject({
  webhookId: text,
  eventName: text,
  status: text,
  dateTime: text,
  lastRetryDateTime: text,
  lastResponseCode: text,
  retryCount: count,
  url: text,
});

export type ReportedNotification = z.output<typeof reportedNotification>;

/**
 * Every row of the list, in order: a row that is not a JSON object is kept as
 * `{ notAnObject: <the row> }` rather than dropped, so a page holds as many rows as the platform
 * counted (paging stops at a short page) and recovery can report the row.
 */
const notificationRows = z
  .unknown()
  .optional()
  .transform((value): ReportedNotification[] =>
    (Array.isArray(value) ? value : []).map((item: unknown) => {
      const parsed = reportedNotification.safeParse(item);
      return parsed.success ? parsed.data : { notAnObject: item };
    }),
  );

export const deliveryReportResponse = lenientObject({
  notifications: notificationRows,
  totalCount: count,
});

/** Largest webhookId: Webhookids are int64 (`bigint` here). */
const WEBHOOK_ID_MAX = 9_223_372_036_854_775_807n;

/** Most characters of a row kept with its problem. */
export const ROW_RAW_LIMIT = 500;

/** C0 and C1 control characters and DEL: no text field of a report row has a reason to hold one. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

export type NotificationRow =
  | { usable: true; webhookId: string; notification: ReportedNotification }
  | { usable: false; reason: string; raw: string };

/**
 * Whether recovery can act on one report row, and if so its Webhookid in canonical form (no
 * leading zeros, as the receiver stores it). Not usable: a row that is not an object, has no
 * `webhookId`, one that is not 1-19 digits or beyond int64, or a control character (NUL, ...)
 * in any text field. An unusable row is never guessed at: its reason and its raw text (webhookId
 * first, cut to `ROW_RAW_LIMIT`; JSON, so a NUL is written as `\u0000`) are for an operator.
 */
export function usableNotification(notification: ReportedNotification): NotificationRow {
  const problem = (reason: string): NotificationRow => ({
    usable: false,
    reason,
    raw: rawRow(notification),
  });
  if ('notAnObject' in notification) return problem('the row is not a JSON object');
  const controlIn = fieldWithControlCharacter(notification);
  if (controlIn !== undefined) return problem(`a control character in ${controlIn}`);
  const id = notification.webhookId;
  if (id === undefined) return problem('no webhookId');
  if (!/^\d{1,19}$/.test(id)) return problem('webhookId is not 1-19 digits');
  const value = BigInt(id);
  if (value > WEBHOOK_ID_MAX) return problem('webhookId is beyond the int64 range');
  return { usable: true, webhookId: value.toString(), notification };
}

function rawRow(notification: ReportedNotification): string {
  const { webhookId, ...rest } = notification;
  let raw: string;
  try {
    raw = JSON.stringify('notAnObject' in notification ? rest.notAnObject : { webhookId, ...rest });
  } catch {
    raw = String(webhookId);
  }
  return (raw ?? 'undefined').slice(0, ROW_RAW_LIMIT);
}

/** The first field (a dotted path) whose text holds a control character, or undefined. */
function fieldWithControlCharacter(value: unknown, path = '', depth = 0): string | undefined {
  if (typeof value === 'string') return hasControlCharacter(value) ? path || 'the row' : undefined;
  if (value === null || typeof value !== 'object' || depth > 4) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const name = path ? `${path}.${key}` : key;
    if (hasControlCharacter(key)) return name;
    const found = fieldWithControlCharacter(inner, name, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}
