import type { Logger } from '../logger.ts';
import type { ProviderClient } from '../provider/provider-client.ts';
import { ProviderError } from '../provider/provider-error.ts';
import { readDeliveryReport } from '../provider/report-pages.ts';
import type { ReportedNotification } from '../provider/responses/subscriptions.ts';
import type { AttemptsRepository } from './attempts-repository.ts';

/**
 * One Sydney day of the delivery report: every notification the platform gave up on (`Error`)
 * or reports as `Sent` while we hold no such Webhookid (and have not quarantined it) is asked
 * for again. The receiver deduplicates on Webhookid, so resending something that arrives
 * meanwhile is harmless. Each notification is resent at most `maxAttempts` times, at least
 * `spacingMs` apart, so recovery never loops on one; past the limit it counts as failed.
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
  seen: number;
  alreadyStored: number;
  quarantined: number;
  /** Neither Sent nor Error yet: the platform is still delivering it. */
  inProgress: number;
  /** Resent recently; waiting for it to arrive before asking again. */
  waiting: number;
  resent: number;
  failed: number;
}

export const emptyTally = (): NotificationTally => ({
  seen: 0,
  alreadyStored: 0,
  quarantined: 0,
  inProgress: 0,
  waiting: 0,
  resent: 0,
  failed: 0,
});

export interface ResendDeps {
  client: ProviderClient;
  attempts: AttemptsRepository;
  logger: Logger;
  now: () => Date;
  policy: ResendPolicy;
  progress?: (line: string) => void;
}

export async function resendMissing(
  deps: ResendDeps,
  day: string,
  tally: NotificationTally,
): Promise<void> {
  const notifications = await readDeliveryReport(deps.client, day, {
    onPage: (page, rows) => deps.progress?.(`${day}: delivery report page ${page}, ${rows} rows`),
  });
  const ids = notifications.flatMap((n) => (n.webhookId === undefined ? [] : [n.webhookId]));
  const [stored, quarantined, history] = await Promise.all([
    deps.attempts.storedWebhookIds(ids),
    deps.attempts.quarantinedWebhookIds(ids),
    deps.attempts.history(ids),
  ]);
  for (const notification of notifications) {
    tally.seen += 1;
    const id = notification.webhookId;
    if (id === undefined || !/^\d{1,19}$/.test(id)) {
      tally.failed += 1;
      deps.logger.error({ day, notification }, 'delivery report row without a usable webhookId');
      continue;
    }
    if (stored.has(id)) tally.alreadyStored += 1;
    else if (quarantined.has(id)) tally.quarantined += 1;
    else {
      const reason = reasonToResend(notification);
      if (reason === undefined) tally.inProgress += 1;
      else await resendOne(deps, { day, id, reason, notification }, history.get(id), tally);
    }
  }
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
  history: { attempts: number; lastAttemptAt: Date } | undefined,
  tally: NotificationTally,
): Promise<void> {
  const now = deps.now();
  const fields = { webhookId: target.id, event: target.notification.eventName, day: target.day };
  if (history && history.attempts >= deps.policy.maxAttempts) {
    tally.failed += 1;
    deps.logger.error(
      { ...fields, attempts: history.attempts },
      'notification NOT recovered: resend limit reached',
    );
    return;
  }
  if (history && now.getTime() - history.lastAttemptAt.getTime() < deps.policy.spacingMs) {
    tally.waiting += 1;
    return;
  }
  if (tally.resent >= deps.policy.maxResendsPerRun) {
    tally.waiting += 1;
    return;
  }
  const base = {
    webhookId: target.id,
    eventName: target.notification.eventName,
    reportDay: target.day,
    reason: target.reason,
    attemptedAt: now,
  };
  try {
    const answer = await deps.client.resend({ webhookId: target.id });
    await deps.attempts.record({
      ...base,
      outcome: 'resent',
      httpStatus: 200,
      providerStatus: answer.envelope.status,
      description: answer.envelope.statusDescription,
    });
    tally.resent += 1;
    deps.logger.info({ ...fields, reason: target.reason }, 'notification resend requested');
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    await deps.attempts.record({
      ...base,
      outcome: 'failed',
      httpStatus: error.httpStatus,
      providerStatus: error.status,
      description: error.message,
    });
    tally.failed += 1;
    deps.logger.error({ ...fields, error: error.toJSON() }, 'notification resend failed');
  }
}
