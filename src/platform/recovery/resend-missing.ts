import type { Logger } from '../../lib/logger.ts';
import type { ProviderClient } from '../client/provider-client.ts';
import { ProviderError } from '../client/protocol/provider-error.ts';
import { deliveryReportPages, type ReportPage } from '../client/report-pages.ts';
import {
  usableNotification,
  type ReportedNotification,
} from '../client/responses/subscriptions.ts';
import type { AttemptHistory, AttemptsRepository } from './attempts-repository.ts';
import { LeaseLostError, type Lease } from '../../lib/database/lease.ts';
import { decideResend } from './resend-decision.ts';
import { readReportInPages, type ReportReading, type RunContext } from './report-reading.ts';
import type { RowProblem } from './row-problems.ts';

/**
 * One Sydney day of the delivery report, page by page: every notification the platform gave up
 * on (`Error`) or reports as `Sent` while we hold no such Webhookid (and have not quarantined
 * it) is asked for again. The receiver deduplicates on Webhookid, so resending something that
 * arrives meanwhile is harmless. Each notification is resent at most `maxAttempts` times, at
 * least `spacingMs` apart unless the last resend is known to have failed (resend-decision.ts),
 * so recovery never loops on one; past the limit it counts as failed.
 *
 * Row by row: a row recovery cannot act on (see usableNotification) is recorded in
 * `recovery_row_problems` and skipped; the rest of the page and the run go on. A Webhookid listed
 * more than once (on one page, across pages or on both days) is considered once per run, so the
 * limit and the spacing hold within a run as across runs. Each resend is recorded before it is
 * sent, and only while the run holds its lease. Once the run's resend budget is spent, the rows
 * still to be resent are left for the next run: the reading stops on that page and the saved
 * position does not pass it (report-reading.ts).
 */
export interface ResendPolicy {
  maxAttempts: number;
  spacingMs: number;
  /** Most resends asked for in one run (a budget against flooding the platform and us). */
  maxResendsPerRun: number;
}

export const DEFAULT_RESEND_POLICY: ResendPolicy = {
  maxAttempts: 3,
  spacingMs: 10 * 60_000,
  maxResendsPerRun: 1000,
};

export interface NotificationTally {
  /** Rows read, readable or not. */
  seen: number;
  alreadyStored: number;
  quarantined: number;
  /** Neither Sent nor Error yet: the platform is still delivering it. */
  inProgress: number;
  /** Resent recently; asked again on a later run. */
  waiting: number;
  /**
   * To be resent, but the run's resend budget (`maxResendsPerRun`) was spent: the run stops on
   * that page and the next run reads it again. Only the rows of pages read are counted.
   */
  overBudget: number;
  resent: number;
  /**
   * Of `resent`: asked again before the spacing because the last resend failed (its call, or
   * the delivery it brought, as the report shows): see resend-decision.ts.
   */
  retried: number;
  /** Not recovered: the resend refused, or the resend limit reached. */
  failed: number;
  /** Rows that could not be read (recorded in recovery_row_problems). */
  unreadable: number;
  /** Rows repeating a Webhookid already considered in this run. */
  duplicates: number;
}

export const emptyTally = (): NotificationTally => ({
  seen: 0,
  alreadyStored: 0,
  quarantined: 0,
  inProgress: 0,
  waiting: 0,
  overBudget: 0,
  resent: 0,
  retried: 0,
  failed: 0,
  unreadable: 0,
  duplicates: 0,
});

export interface ResendDeps {
  client: ProviderClient;
  attempts: AttemptsRepository;
  logger: Logger;
  now: () => Date;
  policy: ResendPolicy;
  run: RunContext;
  /** Webhookids considered in this run so far (all days): each is considered once. */
  considered: Set<string>;
  /** Resends asked for in this run so far (answered or not), against `maxResendsPerRun`. */
  asked: { count: number };
  lease?: Lease | undefined;
}

export async function resendMissing(
  deps: ResendDeps,
  day: string,
  tally: NotificationTally,
  reading: ReportReading,
): Promise<void> {
  await readReportInPages(
    deps.run,
    reading,
    (range) => deliveryReportPages(deps.client, day, range),
    async (page) => {
      const left = await resendPage(deps, day, page, tally);
      const say = `${tally.resent} resent, ${tally.failed} failed, ${tally.unreadable} unreadable so far`;
      return left ? { say: `${say}, ${left} left for a later run`, rowsLeftForLater: true } : say;
    },
  );
}

interface Candidate {
  id: string;
  notification: ReportedNotification;
}

/** Acts on one page; answers how many of its rows were left for a later run (budget spent). */
async function resendPage(
  deps: ResendDeps,
  day: string,
  page: ReportPage<{ notifications: ReportedNotification[] }>,
  tally: NotificationTally,
): Promise<number> {
  const problems: RowProblem[] = [];
  const candidates: Candidate[] = [];
  page.content.notifications.forEach((notification, index) => {
    tally.seen += 1;
    const read = usableNotification(notification);
    if (!read.usable) {
      problems.push({ row: page.skip + index + 1, reason: read.reason, raw: read.raw });
      return;
    }
    if (deps.considered.has(read.webhookId)) {
      tally.duplicates += 1;
      return;
    }
    deps.considered.add(read.webhookId);
    candidates.push({ id: read.webhookId, notification });
  });
  tally.unreadable += problems.length;
  await deps.run.problems.record(deps.run.runId, 'delivery', day, problems, deps.now());
  for (const problem of problems.slice(0, 20)) {
    deps.logger.error({ day, ...problem }, 'delivery report row not read; recorded and skipped');
  }

  const ids = candidates.map((c) => c.id);
  const [stored, quarantined, history] = await Promise.all([
    deps.attempts.storedWebhookIds(ids),
    deps.attempts.quarantinedWebhookIds(ids),
    deps.attempts.history(ids),
  ]);
  let left = 0;
  for (const { id, notification } of candidates) {
    if (stored.has(id)) tally.alreadyStored += 1;
    else if (quarantined.has(id)) tally.quarantined += 1;
    else {
      const reason = reasonToResend(notification);
      if (reason === undefined) tally.inProgress += 1;
      else {
        const done = await resendOne(
          deps,
          { day, id, reason, notification },
          history.get(id),
          tally,
        );
        if (done === 'over-budget') left += 1;
      }
    }
  }
  return left;
}

function reasonToResend(n: ReportedNotification): 'error' | 'missing' | undefined {
  const status = n.status?.trim().toLowerCase();
  return status === 'error' ? 'error' : status === 'sent' ? 'missing' : undefined;
}

async function resendOne(
  deps: ResendDeps,
  target: {
    day: string;
    id: string;
    reason: 'error' | 'missing';
    notification: ReportedNotification;
  },
  history: AttemptHistory | undefined,
  tally: NotificationTally,
): Promise<'over-budget' | undefined> {
  const now = deps.now();
  const fields = { webhookId: target.id, event: target.notification.eventName, day: target.day };
  const reported = {
    retryCount: target.notification.retryCount,
    lastRetryDateTime: target.notification.lastRetryDateTime,
  };
  const decision = decideResend(history, reported, deps.policy, now);
  if (decision.action === 'give-up') {
    tally.failed += 1;
    deps.logger.error(
      { ...fields, attempts: history?.attempts },
      'notification NOT recovered: resend limit reached',
    );
    return undefined;
  }
  if (decision.action === 'wait') {
    tally.waiting += 1;
    return undefined;
  }
  if (deps.asked.count >= deps.policy.maxResendsPerRun) {
    tally.overBudget += 1;
    return 'over-budget';
  }
  if (deps.lease?.lost) throw new LeaseLostError(deps.lease);
  const attemptId = await deps.attempts.begin(
    {
      webhookId: target.id,
      eventName: target.notification.eventName,
      reportDay: target.day,
      reason: target.reason,
      attemptedAt: now,
      reportRetryCount: reported.retryCount,
      reportLastRetry: reported.lastRetryDateTime,
    },
    deps.lease,
  );
  if (attemptId === undefined && deps.lease) {
    deps.lease.markLost();
    throw new LeaseLostError(deps.lease);
  }
  if (attemptId === undefined) throw new Error('resend attempt not recorded');
  deps.asked.count += 1;
  let answer;
  try {
    answer = await deps.client.resend({ webhookId: target.id });
  } catch (error) {
    const known = error instanceof ProviderError ? error : undefined;
    await deps.attempts.finish(attemptId, {
      outcome: 'failed',
      httpStatus: known?.httpStatus,
      providerStatus: known?.status,
      description: known ? known.message : `unexpected error: ${String(error)}`,
    });
    tally.failed += 1;
    if (!known) throw error;
    deps.logger.error({ ...fields, error: known.toJSON() }, 'notification resend failed');
    return undefined;
  }
  await deps.attempts.finish(attemptId, {
    outcome: 'resent',
    httpStatus: 200,
    providerStatus: answer.envelope.status,
    description: answer.envelope.statusDescription,
  });
  tally.resent += 1;
  if (decision.why === 'call-failed' || decision.why === 'delivery-failed') tally.retried += 1;
  deps.logger.info(
    { ...fields, reason: target.reason, why: decision.why },
    'notification resend requested',
  );
  return undefined;
}
