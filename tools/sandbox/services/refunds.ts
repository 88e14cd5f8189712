import type { SandboxDeps } from './deps.ts';
import { fromCents, toCents } from '../core/money.ts';
import type { Fields, Refund } from '../state/types.ts';
import type { RefundRequest } from '../validation/refund-schema.ts';

/** An NPP (or PayTo, which settles over NPP) payment can be refunded 5 minutes after receipt. */
const NPP_REFUND_WAIT_MS = 5 * 60 * 1000;
/** The platform's published example fee: 0.60 + 0.06 GST. */
const FEE = {
  feeAmountExcludingGst: 0.6,
  feeAmountIncludingGst: 0.66,
  feeAmountGstComponent: 0.06,
};

export type RefundOutcome =
  | { ok: true; result: Fields; repeated: boolean }
  | { ok: false; httpStatus: number; description: string };

/**
 * A refund: refused before the NPP wait is over and above what is still refundable; a repeated
 * UniqueReference answers the first result again and refunds nothing more.
 */
export function refund(
  deps: Pick<SandboxDeps, 'store' | 'clock'>,
  request: RefundRequest,
): RefundOutcome {
  const { store, clock } = deps;
  const { state } = store;
  if (request.uniqueReference !== undefined) {
    const earlier = state.refunds.find((r) => r.uniqueReference === request.uniqueReference);
    if (earlier) return { ok: true, result: earlier.result, repeated: true };
  }
  const payment = state.payments.find((p) =>
    request.originalTransactionId !== undefined
      ? p.transactionId === request.originalTransactionId
      : p.paymentInitiationUid === request.paymentInitiationUid,
  );
  if (!payment)
    return { ok: false, httpStatus: 400, description: 'Original transaction not found' };
  const amountCents = toCents(request.refundAmount);
  if (amountCents <= 0)
    return { ok: false, httpStatus: 400, description: 'refundAmount must be more than 0' };
  const now = clock.now().getTime();
  if (payment.kind !== 'DirectEntry' && now - payment.receivedAtMs < NPP_REFUND_WAIT_MS) {
    return {
      ok: false,
      httpStatus: 400,
      description: 'An NPP payment can be refunded only 5 minutes after it was received',
    };
  }
  const refundable = payment.amountCents - payment.refundedCents;
  if (amountCents > refundable) {
    return {
      ok: false,
      httpStatus: 400,
      description: `refundAmount is more than the amount still refundable (${fromCents(refundable)})`,
    };
  }
  state.lastRefundTransactionId += 1;
  const result: Fields = {
    transactionId: state.lastRefundTransactionId,
    callerUniqueReference: request.uniqueReference ?? '',
    ...FEE,
  };
  const record: Refund = {
    // No nonce is stored as none: an empty text would be a nonce a later request could match.
    ...(request.uniqueReference !== undefined && { uniqueReference: request.uniqueReference }),
    originalTransactionId: payment.transactionId,
    amountCents,
    atMs: now,
    result,
  };
  if (!store.add('refunds', record)) {
    state.lastRefundTransactionId -= 1;
    return {
      ok: false,
      httpStatus: 500,
      description: 'The sandbox holds as many refunds as it may',
    };
  }
  payment.refundedCents += amountCents;
  store.changed();
  return { ok: true, result, repeated: false };
}
