import { createHash } from 'node:crypto';
import type { TypedRows } from '../../src/events/types.ts';
import type { DeliveryToStore } from '../../src/storage/store-deliveries.ts';
import { freshWebhookId } from './deliveries.ts';

/**
 * What the pipeline hands the store for one delivery: an unmodelled event by default, or a
 * payment with this TransactionId.
 */
export function deliveryItem(
  overrides: {
    webhookId?: string;
    body?: string;
    payloadJson?: string | null;
    transactionId?: string;
  } = {},
): DeliveryToStore {
  const body = overrides.body ?? `{"n":"${Math.random()}"}`;
  const typed: TypedRows = overrides.transactionId
    ? {
        kind: 'npp-payment',
        rows: [
          {
            transactionId: overrides.transactionId,
            endToEndId: null,
            amount: '1.5',
            dateTimeLocal: '2023-08-11 14:19:16',
            dateTimeText: '2023-08-11T14:19:16',
            receiptNumber: null,
            payId: null,
            remitterName: null,
            bsb: null,
            accountNumber: null,
            remittanceInformation: null,
            refundInboundAmount: null,
            refundAmount: null,
            refundId: null,
          },
        ],
      }
    : { kind: 'unmodelled', rows: [] };
  return {
    delivery: {
      webhookId: overrides.webhookId ?? freshWebhookId(),
      eventName: overrides.transactionId ? 'NPPReceivePayment' : 'SomethingElse',
      receivedAt: new Date(),
      bodySha256: createHash('sha256').update(body).digest('hex'),
      rawBody: Buffer.from(body),
      payloadJson: overrides.payloadJson === undefined ? body : overrides.payloadJson,
      contentType: 'application/json',
      headers: {},
      requestId: null,
      remoteAddress: null,
      signingKeyFingerprint: null,
    },
    typed,
  };
}
