import { createHash } from 'node:crypto';
import type { Logger } from '../../lib/logger.ts';
import { fromUnits, toUnits } from '../../lib/decimal-money.ts';
import type { ProviderClient } from '../client/provider-client.ts';
import { ProviderError } from '../client/protocol/provider-error.ts';
import {
  activeRefunds,
  dropUnsentRefund,
  insertPendingRefund,
  lastAnsweredDialect,
  lockPayment,
  recordOutcome,
  refundByCallerReference,
  type RefundRow,
} from './refunds-repository.ts';
import { tryLockRefund } from './refund-sender-lock.ts';
import { refundRequest } from '../client/requests/refund.ts';
import { checkRequest } from '../client/requests/rules.ts';
import type { ProviderDb } from '../storage/tables.ts';

/**
 * Refunds a payment this service stored, so that money moves at most once:
 * 1. The caller names the refund with its own reference (a return or order id). The same
 *    reference again never makes a second refund: it answers the recorded result, or resumes
 *    the same request when the outcome is not known. A refund without one is refused: a re-run
 *    of a command could not be told from a new refund.
 * 2. While this run holds the reference's sender lock (refund-sender-lock.ts: a second run of
 *    the same command meanwhile is refused; one that died releases it at once), and in one
 *    transaction holding the payment's row lock: the checks (the payment is stored, an
 *    NPP/PayTo payment is at least 5 minutes old, the payer's account is known, the amount is
 *    at most what is not yet refunded or reserved) and a `pending` row whose platform nonce is
 *    derived from the payment and the caller reference, committed before anything is sent.
 * 3. The call, retried by the client with that same nonce only.
 * 4. The outcome: `succeeded`; `unknown` when ANY attempt may have reached the platform
 *    (timeout, broken connection, 5xx, a 2xx that cannot be read or is not `Ok`), whatever the
 *    later attempts answered: the amount stays reserved until the refund is resumed; `failed`
 *    only when every attempt was a definite refusal (the amount is released).
 */
export const NPP_REFUND_WAIT_MS = 5 * 60_000;

/** The caller's reference: what a merchant's systems already have (a return or order id). */
const CALLER_REFERENCE = /^[\x21-\x7e]{1,100}$/;

export interface RefundStoredPaymentInput {
  transactionId: string;
  /** The caller's own reference for this refund, required: one refund per reference, ever. */
  callerReference: string;
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
  /** An earlier request under this reference had no known outcome and was sent again. */
  resumed: boolean;
  /** Answered from the record: nothing was sent. */
  replayed: boolean;
  refund: RefundRow;
}

type Reservation =
  { kind: 'send'; refund: RefundRow; resumed: boolean } | { kind: 'recorded'; refund: RefundRow };

export async function refundStoredPayment(
  deps: RefundDeps,
  input: RefundStoredPaymentInput,
): Promise<RefundResult> {
  checkCallerReference(input.callerReference);
  const lock = await tryLockRefund(deps.db, input.callerReference);
  if (!lock) {
    refuse(
      'callerReference',
      'names a refund being sent right now by another run: wait for it, then run again to read its result',
    );
  }
  try {
    return await reserveAndSend(deps, input);
  } finally {
    await lock.release();
  }
}

async function reserveAndSend(
  deps: RefundDeps,
  input: RefundStoredPaymentInput,
): Promise<RefundResult> {
  const reservation = await reserve(deps, input);
  if (reservation.kind === 'recorded') return replay(reservation.refund);
  const { refund, resumed } = reservation;
  const log = {
    transactionId: refund.transaction_id,
    callerReference: refund.caller_reference,
    uniqueReference: refund.unique_reference,
  };
  const start = refund.dialect ?? (await lastAnsweredDialect(deps.db));
  try {
    const answer = await deps.client.refund(
      {
        uniqueReference: refund.unique_reference,
        originalTransactionId: refund.transaction_id,
        refundAmount: fromUnits(toUnits(refund.amount), 2) ?? refund.amount,
        ...(refund.description !== null && { description: refund.description }),
        ...(refund.refund_reference !== null && { refundReference: refund.refund_reference }),
      },
      start,
    );
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
      dialect: answer.dialect,
    });
    return { resumed, replayed: false, refund: row };
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    if (neverSent(error)) {
      if (!resumed) await dropUnsentRefund(deps.db, refund.caller_reference);
      throw error;
    }
    const unknown = error.outcomeUnknown;
    deps.logger.error(
      { ...log, error: error.toJSON() },
      unknown
        ? 'refund outcome unknown: the platform may have refunded; run the same command again to resume it'
        : 'refund refused',
    );
    const row = await recordOutcome(deps.db, refund.unique_reference, {
      state: unknown ? 'unknown' : 'failed',
      completedAt: unknown ? null : deps.now(),
      attempts: error.attempts,
      httpStatus: error.httpStatus,
      providerStatus: error.status,
      statusDescription: error.message,
      dialect: error.dialect,
    });
    throw Object.assign(error, { refund: row });
  }
}

/** Nothing left this process: no credentials, or a request refused before sending. */
function neverSent(error: ProviderError): boolean {
  return (
    error.kind === 'not-configured' ||
    error.kind === 'invalid-request' ||
    error.kind === 'sign-in-refused'
  );
}

/** The recorded result of a finished refund: a success answers it, a refusal is thrown again. */
function replay(refund: RefundRow): RefundResult {
  if (refund.state === 'succeeded') return { resumed: false, replayed: true, refund };
  const error = new ProviderError({
    endpoint: 'refund',
    kind: 'http',
    ...(refund.http_status !== null && { httpStatus: refund.http_status }),
    ...(refund.provider_status !== null && { status: refund.provider_status }),
    statusDescription: `refused earlier under this caller reference (nothing sent now): ${refund.status_description ?? 'no description'}`,
    attempts: 0,
  });
  throw Object.assign(error, { refund });
}

/** The platform nonce: the same for the same payment and caller reference, on every machine. */
export function platformNonce(transactionId: string, callerReference: string): string {
  const digest = createHash('sha256').update(`${transactionId}\n${callerReference}`).digest('hex');
  return `rf${digest.slice(0, 40)}`;
}

function refuse(path: string, message: string): never {
  throw new ProviderError({
    endpoint: 'refund',
    kind: 'invalid-request',
    statusDescription: 'refund refused before sending',
    fieldErrors: [{ path, message: `${path} ${message}` }],
  });
}

function checkCallerReference(callerReference: string | undefined): void {
  if (!CALLER_REFERENCE.test(callerReference ?? '')) {
    refuse(
      'callerReference',
      'is required: 1-100 printable characters naming this refund in your systems (a return or order id), so a repeated command never refunds twice',
    );
  }
}

/** Runs while this process holds the caller reference's sender lock (no other live sender). */
async function reserve(deps: RefundDeps, input: RefundStoredPaymentInput): Promise<Reservation> {
  return deps.db.transaction().execute(async (tx): Promise<Reservation> => {
    const payment = await lockPayment(tx, input.transactionId);
    if (!payment) return refuse('transactionId', 'names no payment stored here');
    const now = deps.now();
    const earlier = await refundByCallerReference(tx, input.callerReference);
    if (earlier) return again(earlier, input);
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
    const refunds = await activeRefunds(tx, payment.transactionId);
    const reserved = refunds.reduce((sum, r) => sum + toUnits(r.amount), 0n);
    const left = toUnits(payment.amount) - reserved;
    const amount =
      input.amount ??
      fromUnits(left, 2) ??
      refuse('amount', `is required: the ${fromUnits(left, 4)} left is not whole cents`);
    if (toUnits(amount) > left) {
      const waiting = refunds.filter((r) => r.state !== 'succeeded').map((r) => r.caller_reference);
      refuse(
        'amount',
        `is more than the ${fromUnits(left, 4) ?? '0'} not yet refunded${waiting.length > 0 ? ` (reserved by refunds without a final answer: ${waiting.join(', ')}; run those again to resume them)` : ''}`,
      );
    }
    const reference = platformNonce(payment.transactionId, input.callerReference);
    // Every rule of the interface, checked now so that nothing unsendable is ever reserved.
    checkRequest('refund', refundRequest, {
      uniqueReference: reference,
      originalTransactionId: payment.transactionId,
      refundAmount: amount,
      ...(input.description !== undefined && { description: input.description }),
      ...(input.refundReference !== undefined && { refundReference: input.refundReference }),
    });
    const row = {
      unique_reference: reference,
      caller_reference: input.callerReference,
      transaction_id: payment.transactionId,
      payment_event: payment.event,
      amount,
      description: input.description ?? null,
      refund_reference: input.refundReference ?? null,
      requested_at: now,
    };
    return { kind: 'send', refund: await insertPendingRefund(tx, row), resumed: false };
  });
}

/**
 * The same caller reference again: the record's answer, or the same request resumed. A
 * `pending` row here was left by a run that died (a live one would hold the sender lock).
 */
function again(earlier: RefundRow, input: RefundStoredPaymentInput): Reservation {
  if (earlier.transaction_id !== input.transactionId) {
    refuse(
      'callerReference',
      `already names a refund of another payment (${earlier.transaction_id}): use a new reference for this one`,
    );
  }
  if (input.amount !== undefined && toUnits(input.amount) !== toUnits(earlier.amount)) {
    refuse(
      'amount',
      `differs from the ${earlier.amount} asked for earlier under this caller reference: use a new reference for another amount`,
    );
  }
  if (earlier.state === 'succeeded' || earlier.state === 'failed') {
    return { kind: 'recorded', refund: earlier };
  }
  return { kind: 'send', refund: earlier, resumed: true };
}
