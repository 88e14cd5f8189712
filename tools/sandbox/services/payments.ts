import type { SandboxDeps } from './deps.ts';
import { LIMITS } from '../state/store.ts';
import { sydneyLocalIso } from '../../../src/lib/sydney-time.ts';
import type { Fields, Payment, PaymentKind } from '../state/types.ts';
import {
  directCreditBatch,
  directCreditBatchId,
  directCreditRecord,
  paymentPayload,
} from '../webhooks/payloads.ts';

const KIND_OF_EVENT: Record<string, PaymentKind> = {
  NPPReceivePayment: 'NPP',
  PayToReceivePayment: 'PayTo',
  InboundDirectCredit: 'DirectEntry',
};

export interface ReceivedPayment {
  /** The payment; for a direct-credit batch, its first record, with the batch as `payload`. */
  payment: Payment;
  /** Every payment kept: one, or one per record of a direct-credit batch. */
  payments: Payment[];
  webhookIds: string[];
}

type Deps = Pick<SandboxDeps, 'store' | 'clock' | 'notifier'>;

interface PaymentRequest {
  event: string;
  amountCents: number;
  /** NPP and PayTo: how much of it went back at once (a refund settled; RefundDetails). */
  refundCents?: number;
  dateTime?: string;
  /**
   * Fields to put in the body. For InboundDirectCredit, `count` (1-100, default 1) is the number
   * of records in the batch, each of `amountCents`.
   */
  chosen: Fields;
}

/**
 * A payment arrives: it is kept (for refunds and the PayTo report), a payer resolving a
 * registered PayID is noted on it, and the subscribers of its event are notified.
 * InboundDirectCredit arrives as the platform sends it: a batch (`count` records), one
 * notification for the whole batch, each record kept as a payment of its own.
 * Undefined when the sandbox holds as many payments as it may.
 */
export function receivePayment(deps: Deps, input: PaymentRequest): ReceivedPayment | undefined {
  const kind = KIND_OF_EVENT[input.event] ?? 'NPP';
  if (kind === 'DirectEntry') return receiveDirectCredits(deps, input);
  const { store, clock, notifier } = deps;
  const now = clock.now();
  const dateTime = input.dateTime ?? sydneyLocalIso(now.getTime());
  const { payload, paymentInitiationUid } = paymentPayload({
    kind,
    id: store.ids.next(),
    amountCents: input.amountCents,
    dateTime,
    chosen: input.chosen,
    ...(input.refundCents !== undefined && { refundCents: input.refundCents }),
  });
  const payment: Payment = {
    kind,
    eventName: input.event,
    transactionId: String(payload.TransactionId),
    ...(paymentInitiationUid !== undefined && { paymentInitiationUid }),
    receivedAtMs: now.getTime(),
    stamp: stampOfIso(dateTime) ?? '',
    amountCents: input.amountCents,
    refundedCents: input.refundCents ?? 0,
    payload,
  };
  if (!store.add('payments', payment)) return undefined;
  const payId = String(payload.PayId ?? '').toLowerCase();
  const registered = store.state.payIds.find((p) => p.payId === payId);
  if (registered) registered.lastResolvedAtMs = now.getTime();
  return { payment, payments: [payment], webhookIds: notifier.notify(input.event, payload) };
}

/** InboundDirectCredit: `{TotalCount, TotalAmount, DirectCreditDetails}`, signed as sent. */
function receiveDirectCredits(deps: Deps, input: PaymentRequest): ReceivedPayment | undefined {
  const { store, clock, notifier } = deps;
  const { count = 1, ...chosen } = input.chosen;
  const records = typeof count === 'number' && Number.isInteger(count) && count > 0 ? count : 1;
  if (store.state.payments.length + records > LIMITS.payments) return undefined;
  const now = clock.now();
  // The reference's example carries milliseconds (`2020-01-13T14:21:50.553`).
  const milliseconds = String(now.getTime() % 1000).padStart(3, '0');
  const dateTime = input.dateTime ?? `${sydneyLocalIso(now.getTime())}.${milliseconds}`;
  const ids = Array.from({ length: records }, () => store.ids.next());
  const batchId = directCreditBatchId(ids[0] ?? 0);
  const made = ids.map((id) =>
    directCreditRecord(id, input.amountCents, dateTime, batchId, chosen),
  );
  const body = directCreditBatch(made);
  const payments = made.map((record): Payment => ({
    kind: 'DirectEntry',
    eventName: input.event,
    transactionId: String(record.TransactionId),
    receivedAtMs: now.getTime(),
    stamp: stampOfIso(dateTime) ?? '',
    amountCents: input.amountCents,
    refundedCents: input.refundCents ?? 0,
    payload: record,
  }));
  for (const payment of payments) store.add('payments', payment);
  const [first] = payments as [Payment];
  return {
    // What the control route answers as `payment`: the body sent.
    payment: { ...first, payload: body },
    payments,
    webhookIds: notifier.notify(input.event, body),
  };
}

/**
 * The report's `yyyyMMddHHmmss` stamp of an ISO wall-clock text (`2024-03-05T09:41:07[.fff]`),
 * or undefined. The report compares stamps as text, which orders them in time because every
 * part is zero-padded.
 */
function stampOfIso(text: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,7})?$/.exec(text);
  return match ? match.slice(1, 7).join('') : undefined;
}
