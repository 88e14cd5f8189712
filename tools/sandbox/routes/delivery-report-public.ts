import type { reportEntry } from './report-entry.ts';

/**
 * The delivery report's `notifications` in the public reference's types, as JSON text:
 * `webhookId` a JSON integer, `lastRetryDateTime` always a string (empty before any retry).
 * Webhook ids can exceed 2^53, where a double would change the last digits, so the digits are
 * written into the JSON text as they are, never through a number.
 */
export function publicNotificationsJson(
  entries: readonly ReturnType<typeof reportEntry>[],
): string {
  const rows = entries.map((entry) => {
    const { webhookId, lastRetryDateTime, ...rest } = entry;
    const id = /^\d{1,19}$/.test(webhookId) ? webhookId : JSON.stringify(webhookId);
    const fields = JSON.stringify({ ...rest, lastRetryDateTime: lastRetryDateTime ?? '' });
    return `{"webhookId":${id},${fields.slice(1)}`;
  });
  return `[${rows.join(',')}]`;
}
