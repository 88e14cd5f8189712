import type { SandboxDeps } from '../deps.ts';
import { sydneyIso, stampOfIso } from '../sydney-time.ts';
import type { Fields, Payment, PaymentKind } from '../state/types.ts';
import { paymentPayload } from '../webhooks/payloads.ts';

const KIND_OF_EVENT: Record<string, PaymentKind> = {
  NPPReceivePayment: 'NPP',
  PayToReceivePayment: 'PayTo',
  InboundDirectCredit: 'DirectEntry',
};

export interface ReceivedPayment {
  payment: Payment;
  webhookIds: string[];
}

/**
 * A payment arrives: it is kept (for refunds and the PayTo report), a payer resolving a
 * registered PayID is noted on it, and the subscribers of its event are notified.
 * Undefined when the sandbox holds as many payments as it may.
 */
export function receivePayment(
  deps: Pick<SandboxDeps, 'store' | 'clock' | 'notifier'>,
  input: { event: string; amountCents: number; dateTime?: string; chosen: Fields },
): ReceivedPayment | undefined {
  const { store, clock, notifier } = deps;
  const now = clock.now();
  const kind = KIND_OF_EVENT[input.event] ?? 'NPP';
  const dateTime = input.dateTime ?? sydneyIso(now);
  const { payload, paymentInitiationUid } = paymentPayload({
    kind,
    id: store.ids.next(),
    amountCents: input.amountCents,
    dateTime,
    chosen: input.chosen,
  });
  const payment: Payment = {
    kind,
    eventName: input.event,
    transactionId: String(payload.TransactionId ?? payload.id),
    ...(paymentInitiationUid !== undefined && { paymentInitiationUid }),
    receivedAtMs: now.getTime(),
    stamp: stampOfIso(dateTime) ?? '',
    amountCents: input.amountCents,
    refundedCents: 0,
    payload,
  };
  if (!store.add('payments', payment)) return undefined;
  const payId = String(payload.PayId ?? payload.payId ?? '').toLowerCase();
  const registered = store.state.payIds.find((p) => p.payId === payId);
  if (registered) registered.lastResolvedAtMs = now.getTime();
  return { payment, webhookIds: notifier.notify(input.event, payload) };
}
