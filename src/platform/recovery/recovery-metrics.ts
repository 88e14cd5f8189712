import { Counter, Gauge, type Registry } from 'prom-client';
import type { RecoverySummary } from './run-recovery.ts';

/**
 * What an operator alerts on for recovery, registered on the service's registry. Only the
 * instance holding the lease runs recovery, so read these as max/sum over instances.
 */
export interface RecoveryMetrics {
  runs: Counter<'result'>;
  notifications: Counter<'result'>;
  lastSuccess: Gauge;
  paytoUnmatched: Gauge;
  observe(summary: RecoverySummary, finishedAt: Date): void;
}

export function createRecoveryMetrics(registry: Registry): RecoveryMetrics {
  const runs = new Counter({
    name: 'recovery_runs_total',
    help: 'Scheduled recovery runs: ok, failed (a report unreadable or a notification not recovered), waiting_on_budget (nothing failed, but the resend budget was spent with notifications left for the next run), skipped (another instance held the lease), error (crashed).',
    labelNames: ['result'],
    registers: [registry],
  });
  const notifications = new Counter({
    name: 'recovery_notifications_total',
    help: 'Notifications recovery asked the platform to resend (recovered) or could not (failed).',
    labelNames: ['result'],
    registers: [registry],
  });
  const lastSuccess = new Gauge({
    name: 'recovery_last_success_timestamp_seconds',
    help: 'When this instance last finished a recovery run with nothing left unrecovered (0: never).',
    registers: [registry],
  });
  const paytoUnmatched = new Gauge({
    name: 'recovery_payto_unmatched_receipts',
    help: 'PayTo receipts in the last run with no stored PayToReceivePayment.',
    registers: [registry],
  });
  for (const result of ['ok', 'failed', 'waiting_on_budget', 'skipped', 'error']) {
    runs.inc({ result }, 0);
  }
  for (const result of ['recovered', 'failed']) notifications.inc({ result }, 0);
  return {
    runs,
    notifications,
    lastSuccess,
    paytoUnmatched,
    observe(summary, finishedAt) {
      runs.inc({ result: runResult(summary) });
      notifications.inc({ result: 'recovered' }, summary.notifications.resent);
      notifications.inc({ result: 'failed' }, summary.notifications.failed);
      if (summary.ok) lastSuccess.set(finishedAt.getTime() / 1000);
      paytoUnmatched.set(summary.payto?.unmatched ?? 0);
    },
  };
}

/** A run not ok only because its resend budget ran out is not a failure: the next goes on. */
function runResult(summary: RecoverySummary): 'ok' | 'failed' | 'waiting_on_budget' {
  if (summary.ok) return 'ok';
  const { notifications: n, errors, leaseLost } = summary;
  const onlyBudget =
    n.overBudget > 0 && n.failed === 0 && n.unreadable === 0 && errors.length === 0 && !leaseLost;
  return onlyBudget ? 'waiting_on_budget' : 'failed';
}
