import { randomBytes } from 'node:crypto';
import type { Logger } from '../logger.ts';
import { fromUnits, toUnits } from './decimal.ts';
import type { ProviderClient } from './provider-client.ts';
import { ProviderError } from './provider-error.ts';
import {
  activeRefunds,
  insertPendingRefund,
  lockPayment,
  recordOutcome,
  type RefundRow,
} from './refunds-repository.ts';
import { refundRequest } from './requests/refund.ts';
import { checkRequest } from './requests/rules.ts';
import type { ProviderDb } from './tables.ts';

/**
 * Refunds a payment this service stored, so that a refund can never happen twice:
 * 1. In one transaction holding the payment's row lock: the checks (the payment is stored, an
 *    NPP/PayTo payment is at least 5 minutes old, the payer's account is known, the amount is
 *    at most what is not yet refunded or reserved) and a `pending` row with a fresh
 *    `UniqueReference`, committed before anything is sent.
 * 2. The call, retried by the client with that same reference only.
 * 3. The answer recorded on the row: `succeeded`, `failed` (refused: the amount is released), or
 *    `unknown` (no answer: the amount stays reserved). Running the command again for the
 *    payment resumes an `unknown` refund (or a `pending` one left by a run that died) with its
 *    own reference instead of starting another; a `pending` one still in flight is left alone.
 */
export const NPP_REFUND_WAIT_MS = 5 * 60_000;
/** A `pending` refund older than this was left by a run that died: it may be resumed. */
const IN_FLIGHT_LIMIT_MS = 10 * 60_000;

const isRecent = (at: Date, now: Date) => now.getTime() - at.getTime() < IN_FLIGHT_LIMIT_MS;

export interface RefundStoredPaymentInput {
  transactionId: string;
  /** Dollars and cents; default: all that is not yet refunded. */
  amount?: string;
  description?: string;
  refundReference?: string;
}

export interface RefundDeps {
  db: ProviderDb;
  client: ProviderClient;
  logger: Logger;
  now: () => Date;
}

export interface RefundResult {
  resumed: boolean;
  refund: RefundRow;
}

export async function refundStoredPayment(
  deps: RefundDeps,
  input: RefundStoredPaymentInput,
): Promise<RefundResult> {
  const { refund, resumed } = await reserve(deps, input);
  const request = {
    UniqueReference: refund.unique_reference,
    originalTransactionId: refund.transaction_id,
    refundAmount: fromUnits(toUnits(refund.amount)) ?? refund.amount,
    ...(refund.description !== null && { description: refund.description }),
    ...(refund.refund_reference !== null && { refundReference: refund.refund_reference }),
  };
  const log = { transactionId: refund.transaction_id, uniqueReference: refund.unique_reference };
  try {
    const answer = await deps.client.refund(request);
    deps.logger.info({ ...log, refundTransactionId: answer.transactionId }, 'refund succeeded');
    const row = await recordOutcome(deps.db, refund.unique_reference, {
      state: 'succeeded',
      completedAt: deps.now(),
      attempts: 1,
      refundTransactionId: answer.transactionId,
      fees: {
        excludingGst: answer.feeAmountExcludingGst,
        includingGst: answer.feeAmountIncludingGst,
        gst: answer.feeAmountGstComponent,
      },
      httpStatus: 200,
      providerStatus: answer.envelope.status,
      statusDescription: answer.envelope.statusDescription,
    });
    return { resumed, refund: row };
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    const unknown = error.outcomeUnknown || error.kind === 'sign-in-refused';
    deps.logger.error(
      { ...log, error: error.toJSON() },
      unknown ? 'refund outcome unknown' : 'refund refused',
    );
    const row = await recordOutcome(deps.db, refund.unique_reference, {
      state: unknown ? 'unknown' : 'failed',
      completedAt: unknown ? null : deps.now(),
      attempts: error.attempts,
      httpStatus: error.httpStatus,
      providerStatus: error.status,
      statusDescription: error.message,
    });
    throw Object.assign(error, { refund: row });
  }
}

async function reserve(deps: RefundDeps, input: RefundStoredPaymentInput) {
  const refuse = (path: string, message: string): never => {
    throw new ProviderError({
      endpoint: 'refund',
      kind: 'invalid-request',
      statusDescription: 'refund refused before sending',
      fieldErrors: [{ path, message: `${path} ${message}` }],
    });
  };
  return deps.db.transaction().execute(async (tx) => {
    const payment = await lockPayment(tx, input.transactionId);
    if (!payment) return refuse('transactionId', 'names no payment stored here');
    const refunds = await activeRefunds(tx, payment.transactionId);
    const unfinished = refunds.find((r) => r.state === 'pending' || r.state === 'unknown');
    if (unfinished?.state === 'pending' && isRecent(unfinished.requested_at, deps.now())) {
      refuse('transactionId', 'has a refund in progress right now (another run is sending it)');
    }
    if (unfinished) {
      if (input.amount !== undefined && toUnits(input.amount) !== toUnits(unfinished.amount)) {
        refuse(
          'amount',
          `differs from the earlier refund of ${unfinished.amount}, which has no answer yet: run again without --amount to resume it`,
        );
      }
      return { refund: unfinished, resumed: true };
    }
    const now = deps.now();
    if (now.getTime() - payment.receivedAt.getTime() < NPP_REFUND_WAIT_MS) {
      refuse(
        'transactionId',
        'is a payment received less than 5 minutes ago (an NPP payment can be refunded only 5 minutes after it was received)',
      );
    }
    if (!payment.sourceBsb || !payment.sourceAccountNumber) {
      refuse(
        'transactionId',
        'is a payment whose payer account (SourceBsb, SourceAccountNumber) is not known: the money could not be returned',
      );
    }
    const reserved = refunds.reduce((sum, r) => sum + toUnits(r.amount), 0n);
    const left = toUnits(payment.amount) - reserved;
    const amount =
      input.amount ??
      fromUnits(left) ??
      refuse('amount', `is required: the ${fromUnits(left, 4)} left is not whole cents`);
    if (toUnits(amount) > left)
      refuse('amount', `is more than the ${fromUnits(left, 4) ?? '0'} not yet refunded`);
    const reference = `rf${randomBytes(16).toString('hex')}`;
    // Every rule of the interface, checked now so that nothing unsendable is ever reserved.
    checkRequest('refund', refundRequest, {
      UniqueReference: reference,
      originalTransactionId: payment.transactionId,
      refundAmount: amount,
      ...(input.description !== undefined && { description: input.description }),
      ...(input.refundReference !== undefined && { refundReference: input.refundReference }),
    });
    const row = {
      unique_reference: reference,
      transaction_id: payment.transactionId,
      payment_event: payment.event,
      amount,
      description: input.description ?? null,
      refund_reference: input.refundReference ?? null,
      requested_at: now,
    };
    return { refund: await insertPendingRefund(tx, row), resumed: false };
  });
}
