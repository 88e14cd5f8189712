import type { NotificationRecord } from '../state/types.ts';
import { sydneyWallClockAt } from '../../../src/lib/sydney-time.ts';

/** One row of the delivery report: no payload, times as the platform shows them (US order). */
export function reportEntry(n: NotificationRecord) {
  return {
    webhookId: n.webhookId,
    eventName: n.eventName,
    url: n.url,
    status: n.status === 'Sent' ? 'Sent' : 'Error',
    retryCount: n.retryCount,
    lastResponseCode: n.lastResponseCode,
    dateTime: sydneyUsDateTime(new Date(n.createdAtMs)),
    lastRetryDateTime:
      n.lastRetryAtMs === undefined ? null : sydneyUsDateTime(new Date(n.lastRetryAtMs)),
  };
}

/** `11/14/2019 3:41:05 PM` (Sydney, US order), as the delivery report shows times. */
function sydneyUsDateTime(at: Date): string {
  const w = sydneyWallClockAt(at.getTime(), '');
  const twelve = w.hour % 12 === 0 ? 12 : w.hour % 12;
  const minute = String(w.minute).padStart(2, '0');
  const second = String(w.second).padStart(2, '0');
  return `${w.month}/${w.day}/${w.year} ${twelve}:${minute}:${second} ${w.hour < 12 ? 'AM' : 'PM'}`;
}
