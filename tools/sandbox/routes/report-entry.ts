import type { NotificationRecord } from '../state/types.ts';
import { sydneyUsDateTime } from '../sydney-time.ts';

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
