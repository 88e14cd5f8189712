import type { Call } from '../core/client.ts';
import type { Tally } from './tally.ts';

/** A payment the demo made: the body sent and its Webhookids. */
export type Created = { payment: Record<string, unknown>; webhookIds: string[] };

/** A row of the delivery report, as the control routes answer it with ?wait=true. */
export interface Delivery {
  webhookId: string;
  eventName: string;
  status: string;
  retryCount: number;
  lastResponseCode: number;
}

/**
 * The end of the demo's day: a refund refused before the NPP wait, made after it (moving the
 * sandbox clock), repeated with the same UniqueReference; then the PayTo and delivery reports.
 */
export async function refundsAndReports(
  call: Call,
  tally: Tally,
  created: Created[],
): Promise<void> {
  const payment = created[0]?.payment ?? {};
  const refund = {
    UniqueReference: `demo-${String(payment.TransactionId)}`,
    originalTransactionId: payment.TransactionId,
    refundAmount: '20.00',
  };
  tally.note('\n8. Refunds');
  const early = await call('POST', '/receivables/v2/refund', { body: refund });
  tally.check('refund right after the payment (before 5 minutes): HTTP', early.status, 400);
  await call('POST', '/sandbox/clock', { body: { seconds: 300 } });
  const done = await call('POST', '/receivables/v2/refund', { body: refund });
  tally.check('refund after 5 minutes: status', done.body.status, 'Ok');
  const again = await call('POST', '/receivables/v2/refund', { body: refund });
  tally.check(
    'same UniqueReference again: same transactionId',
    again.body.transactionId,
    done.body.transactionId,
  );
  tally.note('\n9. Reports');
  const day = String(created[2]?.payment.DateTime ?? '')
    .slice(0, 10)
    .replaceAll('-', '');
  const payTo = await call('GET', `/paytoreceivables/v1/report/${day}000000`);
  const payToRows = (payTo.body.ndeFileDetails as unknown[]).length;
  tally.check(
    `PayTo report for today (${payToRows} rows) lists this run's 2 receipts`,
    payToRows >= 2,
    true,
  );
  const deliveries = await call(
    'GET',
    `/subscriptions/v1/report/${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6)}`,
  );
  const rows = deliveries.body.notifications as Delivery[];
  tally.note(
    `  delivery report: ${rows.length} notifications, ${rows.filter((r) => r.status === 'Sent').length} Sent`,
  );
}
