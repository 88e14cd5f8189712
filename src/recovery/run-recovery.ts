import type { Logger } from '../logger.ts';
import type { ProviderClient } from '../provider/provider-client.ts';
import { ProviderError } from '../provider/provider-error.ts';
import type { ProviderDb } from '../provider/tables.ts';
import { createAttemptsRepository } from './attempts-repository.ts';
import { createPaytoRepository } from './payto-repository.ts';
import { emptyPaytoTally, reconcilePayto, type PaytoTally } from './reconcile-payto.ts';
import {
  DEFAULT_RESEND_POLICY,
  emptyTally,
  resendMissing,
  type NotificationTally,
  type ResendPolicy,
} from './resend-missing.ts';

/**
 * One recovery run over some Sydney days: resend what the receiver missed, reconcile PayTo, and
 * record the run. A report that cannot be read is an error of the run, not a crash: the other
 * days and the other report still go ahead.
 */
export interface RecoveryOptions {
  db: ProviderDb;
  client: ProviderClient;
  logger: Logger;
  now?: () => Date;
  days: readonly string[];
  /** Skip the PayTo report (an account without PayTo). */
  payto?: boolean;
  policy?: ResendPolicy;
  progress?: (line: string) => void;
}

export interface RecoverySummary {
  days: readonly string[];
  notifications: NotificationTally;
  payto: PaytoTally | undefined;
  /** Reports that could not be read, with why. */
  errors: string[];
  /** Every report read and every resend accepted (PayTo findings do not make a run fail). */
  ok: boolean;
  /** Something the operator must look at: the run failed, or PayTo receipts are unmatched. */
  needsAttention: boolean;
}

export async function runRecovery(options: RecoveryOptions): Promise<RecoverySummary> {
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const notifications = emptyTally();
  const payto = options.payto === false ? undefined : emptyPaytoTally();
  const errors: string[] = [];
  const common = {
    client: options.client,
    logger: options.logger,
    now,
    ...(options.progress && { progress: options.progress }),
  };
  const attempts = createAttemptsRepository(options.db);
  const paytoRepository = createPaytoRepository(options.db);

  for (const day of options.days) {
    await guarded(errors, `${day} delivery report`, () =>
      resendMissing(
        { ...common, attempts, policy: options.policy ?? DEFAULT_RESEND_POLICY },
        day,
        notifications,
      ),
    );
    if (payto) {
      await guarded(errors, `${day} PayTo report`, () =>
        reconcilePayto({ ...common, payto: paytoRepository }, day, payto),
      );
    }
  }
  const ok = errors.length === 0 && notifications.failed === 0;
  const summary: RecoverySummary = {
    days: options.days,
    notifications,
    payto,
    errors,
    ok,
    needsAttention: !ok || (payto?.unmatched ?? 0) > 0 || (payto?.unreadable ?? 0) > 0,
  };
  await options.db
    .insertInto('recovery_runs')
    .values({
      started_at: startedAt,
      finished_at: now(),
      days: [...options.days],
      ok,
      summary: JSON.stringify(summary),
    })
    .execute();
  options.logger[ok ? 'info' : 'error']({ recovery: summary }, 'recovery run finished');
  return summary;
}

async function guarded(errors: string[], what: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    errors.push(`${what}: ${error.message}`);
  }
}
