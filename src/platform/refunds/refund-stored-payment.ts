import { createHash } from 'node:crypto';
import type { Logger } from '../../lib/logger.ts';
import { fromUnits, moneyText, toUnits } from '../../lib/money.ts';
import type { ProviderClient } from '../client/provider-client.ts';
import { ProviderError } from '../client/protocol/provider-error.ts';
import {
  activeRefunds,
  dropUnsentRefund,
  insertPendingRefund,
  lastAnsweredDialect,
  lockPayment,
  countAttempts,
  IN_DOUBT,
  recordGuarded,
  recordSuccess,
  refundByCallerReference,
  type ReadVersion,
  type RefundOutcome,
  type RefundRow,
} from './refunds-repository.ts';
import { RefundInDoubtError } from './refund-in-doubt.ts';
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
 * 4. The outcome: `succeeded`; in doubt (`unknown`) when ANY attempt may have reached the
 *    platform (timeout, broken connection, 5xx, a 2xx that cannot be read or is not `Ok`),
 *    whatever the later attempts answered, or when the row was already in doubt (a resume):
 *    a refusal of the resume proves nothing about the first request. A refund in doubt keeps
 *    its amount held; the platform's status look-up settles it when it answers the refund's
 *    own record, else an operator does (refund-resolve-command.ts). `failed` only when every
 *    attempt of a request never sent before was a definite refusal (the amount is released).
 * 5. Every outcome write expects the row this run read (refunds-repository.ts): a success is
 *    never downgraded, and an older run never overwrites a newer outcome.
 */
const NPP_REFUND_WAIT_MS = 5 * 60_000;

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
  /** The sender lock (default refund-sender-lock.ts); a test stands in a lost one. */
  lock?: typeof tryLockRefund;
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
  const lock = await (deps.lock ?? tryLockRefund)(deps.db, input.callerReference);
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
  const read: ReadVersion = { state: refund.state, attempts: refund.attempts };
  const log = {
    transactionId: refund.transaction_id,
    callerReference: refund.caller_reference,
    uniqueReference: refund.unique_reference,
  };
  const start = refund.dialect ?? (await lastAnsweredDialect(deps.db));
  let answer;
  try {
    answer = await deps.client.refund(
      {
        uniqueReference: refund.unique_reference,
        originalTransactionId: refund.transaction_id,
        refundAmount: fromUnits(toUnits(refund.amount), 2) ?? refund.amount,
        ...(refund.description !== null && { description: refund.description }),
        ...(refund.refund_reference !== null && { refundReference: refund.refund_reference }),
      },
      start,
    );
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    if (neverSent(error)) {
      if (!resumed) await dropUnsentRefund(deps.db, refund.caller_reference);
      throw error;
    }
    // A resumed row (unknown, or pending left by a run that died) may have been paid by an
    // earlier run's request whatever this run is answered: it is never made `failed` here.
    if (resumed || error.outcomeUnknown) {
      return settleInDoubt(deps, { refund, read, resumed }, error);
    }
    deps.logger.error({ ...log, error: error.toJSON() }, 'refund refused');
    const row =
      (await recordGuarded(deps.db, refund.unique_reference, read, {
        state: 'failed',
        completedAt: deps.now(),
        attempts: error.attempts,
        httpStatus: error.httpStatus,
        providerStatus: error.status,
        statusDescription: error.message,
        dialect: error.dialect,
      })) ?? (await overtaken(deps, refund, error));
    if (row.state === 'succeeded') return { resumed, replayed: false, refund: row };
    // Another run (after a lost lock) left it in doubt: this refusal does not settle that.
    if (IN_DOUBT.includes(row.state)) throw new RefundInDoubtError(row, error);
    throw Object.assign(error, { refund: row });
  }
  deps.logger.info({ ...log, refundTransactionId: answer.transactionId }, 'refund succeeded');
  const row = await recordMade(deps, refund, {
    state: 'succeeded',
    completedAt: deps.now(),
    attempts: answer.attempts,
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
}

/** Writes a success; when another run recorded it first, its record is the answer. */
async function recordMade(
  deps: RefundDeps,
  refund: RefundRow,
  outcome: RefundOutcome & { state: 'succeeded' },
): Promise<RefundRow> {
  const row = await recordSuccess(deps.db, refund.unique_reference, outcome);
  if (row) {
    if (refund.state === 'failed') {
      deps.logger.error(
        { callerReference: refund.caller_reference, uniqueReference: refund.unique_reference },
        'the platform made a refund recorded as failed: recorded as succeeded now',
      );
    }
    return row;
  }
  return countAttempts(deps.db, refund.unique_reference, outcome.attempts);
}

/**
 * The refund may have been made and no answer says so. The platform's status look-up by nonce
 * settles it when it answers the refund's own record; anything else ("not found", a failure)
 * leaves the row in doubt (`unknown`), its amount held, and this run says so.
 */
async function settleInDoubt(
  deps: RefundDeps,
  sent: { refund: RefundRow; read: ReadVersion; resumed: boolean },
  error: ProviderError,
): Promise<RefundResult> {
  const { refund, read, resumed } = sent;
  const log = {
    callerReference: refund.caller_reference,
    uniqueReference: refund.unique_reference,
  };
  const evidence = await deps.client.refundStatus(refund.unique_reference);
  if (evidence.kind === 'made') {
    deps.logger.warn(
      { ...log, refundTransactionId: evidence.transactionId, lastAnswer: error.toJSON() },
      "refund in doubt settled as made by the platform's status record",
    );
    const row = await recordMade(deps, refund, {
      state: 'succeeded',
      completedAt: deps.now(),
      attempts: error.attempts,
      refundTransactionId: evidence.transactionId,
      httpStatus: error.httpStatus,
      providerStatus: evidence.statusWord,
      statusDescription: `made, by the platform's status record of this uniqueReference (the refund's own answer was: ${error.message})`,
      dialect: error.dialect,
    });
    return { resumed, replayed: false, refund: row };
  }
  const rejected = evidence.kind === 'rejected';
  deps.logger.error(
    { ...log, error: error.toJSON(), evidence },
    rejected
      ? "refund in doubt settled as rejected by the platform's status record"
      : 'refund outcome unknown: the platform may have refunded; its amount stays held. Run the same command again to resume it, or see docs/runbooks/refund-unknown.md',
  );
  const row =
    (await recordGuarded(deps.db, refund.unique_reference, read, {
      state: rejected ? 'failed' : 'unknown',
      completedAt: rejected ? deps.now() : null,
      attempts: error.attempts,
      httpStatus: error.httpStatus,
      providerStatus: rejected ? evidence.statusWord : error.status,
      statusDescription: rejected
        ? `rejected, by the platform's status record of this uniqueReference (${evidence.statusWord})`
        : error.message,
      dialect: error.dialect,
    })) ?? (await overtaken(deps, refund, error));
  if (row.state === 'succeeded') return { resumed, replayed: false, refund: row };
  if (row.state === 'failed') throw Object.assign(error, { refund: row });
  throw new RefundInDoubtError(row, error);
}

/**
 * This run's outcome write found the row moved on: another run (after a lost lock) or an
 * operator recorded a newer outcome, which stands. This run's attempts are still counted.
 */
async function overtaken(
  deps: RefundDeps,
  refund: RefundRow,
  error: ProviderError,
): Promise<RefundRow> {
  const row = await countAttempts(deps.db, refund.unique_reference, error.attempts);
  deps.logger.warn(
    { callerReference: refund.caller_reference, state: row.state },
    "another run recorded this refund's outcome first: its record stands",
  );
  return row;
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
    statusDescription:
      refund.resolved_by !== null
        ? `recorded as not paid by ${refund.resolved_by} on ${refund.resolved_at?.toISOString() ?? '?'} (evidence: ${refund.resolution_evidence ?? '?'}); nothing sent now`
        : `refused earlier under this caller reference (nothing sent now): ${refund.status_description ?? 'no description'}`,
    attempts: 0,
  });
  throw Object.assign(error, { refund });
}

/** The platform nonce: the same for the same payment and caller reference, on every machine. */
function platformNonce(transactionId: string, callerReference: string): string {
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
    // Held: every refund made or that may have been made (in doubt); only a refusal releases.
    const refunds = await activeRefunds(tx, payment.transactionId);
    const reserved = refunds.reduce((sum, r) => sum + toUnits(r.amount), 0n);
    const left = toUnits(payment.amount) - reserved;
    const waiting = refunds.filter((r) => r.state !== 'succeeded').map((r) => r.caller_reference);
    const held =
      waiting.length > 0
        ? ` (held by refunds in doubt: ${waiting.join(', ')}; run those again to resume them, or see docs/runbooks/refund-unknown.md)`
        : '';
    if (input.amount === undefined && left <= 0n) {
      refuse(
        'amount',
        `cannot be all that is left: nothing of ${moneyText(payment.amount)} is left to refund${held}`,
      );
    }
    const amount =
      input.amount ??
      fromUnits(left, 2) ??
      refuse('amount', `is required: the ${moneyText(left)} left is not whole cents`);
    if (toUnits(amount) > left) {
      refuse(
        'amount',
        `is more than the ${moneyText(left > 0n ? left : 0n)} not yet refunded${held}`,
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
      `differs from the ${moneyText(earlier.amount)} asked for earlier under this caller reference: use a new reference for another amount`,
    );
  }
  if (earlier.state === 'succeeded' || earlier.state === 'failed') {
    return { kind: 'recorded', refund: earlier };
  }
  return { kind: 'send', refund: earlier, resumed: true };
}
