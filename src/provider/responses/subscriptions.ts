import type { z } from 'zod';
import { count, lenientObject, listOf, text } from './lenient.ts';

/** Answer to a subscription create: the envelope, and the subscription's id when given. */
export const createSubscriptionResponse = lenientObject(
  { subscriptionId: text, id: text },
  { subscriptionId: ['webhookSubscriptionId'] },
);

/**
 * One notification of the delivery report. `dateTime` is US order and Sydney wall-clock
 * ("11/14/2019 3:41:05 PM"); `webhookId` is an int64 and read as text (never a double).
 * `webhookId` absent means the row cannot be acted on; recovery counts it as a failure.
 */
export const reportedNotification = lenientObject({
  webhookId: text,
  eventName: text,
  status: text,
  dateTime: text,
  lastRetryDateTime: text,
  lastResponseCode: text,
  retryCount: count,
  url: text,
});

export const deliveryReportResponse = lenientObject({
  notifications: listOf(reportedNotification),
  totalCount: count,
});

export type ReportedNotification = z.output<typeof reportedNotification>;
