/**
 * What recovery does, this run, about one notification the receiver does not hold: resend it
 * now, wait (the last resend may still be on its way), or give up (the limit is reached). Pure:
 * the facts come from recovery_attempts and from the report row this run read.
 *
 * Why not simply "one resend every `spacingMs`": after an outage the resends go out exactly when
 * the database is least stable, and a resend whose delivery meets a blip (the receiver answers
 * 5xx, the platform gives up at once since a resend is not retried) would otherwise sit out the
 * whole spacing. So the last resend's result is checked at the next run:
 * - the resend call itself failed (5xx, or no answer: the run or the network died) -> nothing
 *   shows it was done: resend now;
 * - the call was accepted and the report now shows a delivery attempt after it (its retry count
 *   or last retry time moved past what the report said when we resent) while the notification
 *   is still not stored here -> that delivery failed: resend now;
 * - otherwise the platform may still be delivering it: wait out the spacing as before.
 * A resend made early ("cheap") still counts against `maxAttempts`, so nothing loops.
 */
export interface LastResend {
  /** Resends asked for so far, all runs. */
  attempts: number;
  lastAttemptAt: Date;
  lastOutcome: 'resent' | 'failed';
  /** The platform's HTTP status for the last resend call (null: no answer recorded). */
  lastHttpStatus: number | null;
  /** The report row's retryCount when the last resend was asked for (null: not known). */
  reportRetryCount: number | null;
  /** The report row's lastRetryDateTime, as shown, when the last resend was asked for. */
  reportLastRetry: string | null;
}

/** What this run's report says about the notification now. */
export interface ReportedNow {
  retryCount: number | undefined;
  lastRetryDateTime: string | undefined;
}

export interface DecisionPolicy {
  maxAttempts: number;
  spacingMs: number;
}

export type ResendDecision =
  | { action: 'resend'; why: 'first' | 'spaced' | 'call-failed' | 'delivery-failed' }
  | { action: 'wait'; why: 'spacing' }
  | { action: 'give-up' };

export function decideResend(
  last: LastResend | undefined,
  now: ReportedNow,
  policy: DecisionPolicy,
  at: Date,
): ResendDecision {
  if (last === undefined) return { action: 'resend', why: 'first' };
  if (last.attempts >= policy.maxAttempts) return { action: 'give-up' };
  if (callFailed(last)) return { action: 'resend', why: 'call-failed' };
  if (last.lastOutcome === 'resent' && deliveredSince(last, now)) {
    return { action: 'resend', why: 'delivery-failed' };
  }
  if (at.getTime() - last.lastAttemptAt.getTime() < policy.spacingMs) {
    return { action: 'wait', why: 'spacing' };
  }
  return { action: 'resend', why: 'spaced' };
}

/**
 * The last resend call failed with nothing to show it was acted on: a 5xx, or no answer at all.
 * A 4xx refusal is the platform's considered answer; asking again at once would change nothing.
 */
function callFailed(last: LastResend): boolean {
  if (last.lastOutcome !== 'failed') return false;
  return last.lastHttpStatus === null || last.lastHttpStatus >= 500;
}

/**
 * The report shows a delivery attempt made after the last resend was asked for. A resend with
 * nothing recorded of the report (written before these columns existed) shows nothing.
 */
function deliveredSince(last: LastResend, now: ReportedNow): boolean {
  if (last.reportRetryCount === null && last.reportLastRetry === null) return false;
  if (
    last.reportRetryCount !== null &&
    now.retryCount !== undefined &&
    now.retryCount > last.reportRetryCount
  ) {
    return true;
  }
  // Only a change counts: the time is Sydney wall clock text, compared as shown.
  return now.lastRetryDateTime !== undefined && now.lastRetryDateTime !== last.reportLastRetry;
}
