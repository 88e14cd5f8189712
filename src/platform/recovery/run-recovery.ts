import type { Logger } from '../../lib/logger.ts';
import type { ProviderClient } from '../client/provider-client.ts';
import { ProviderError } from '../client/protocol/provider-error.ts';
import { DEFAULT_MAX_PAGES, DEFAULT_PAGE_SIZE } from '../client/report-pages.ts';
import type { ProviderDb, ReportKind } from '../storage/tables.ts';
import { createAttemptsRepository } from './attempts-repository.ts';
import { LeaseLostError, type Lease } from '../../lib/database/lease.ts';
import { createPaytoRepository } from './payto-repository.ts';
import { emptyPaytoTally, reconcilePayto, type PaytoTally } from './reconcile-payto.ts';
import { newReading, type ReportReading, type RunContext } from './report-reading.ts';
import {
  DEFAULT_RESEND_POLICY,
  emptyTally,
  resendMissing,
  type NotificationTally,
  type ResendPolicy,
} from './resend-missing.ts';
import { createRowProblemsRepository, storableText } from './row-problems.ts';
import { createRunsRepository } from './runs-repository.ts';

/**
 * One recovery run over some Sydney days: resend what the receiver missed, reconcile PayTo, and
 * record the run. Nothing one report holds or does stops the others: a report that cannot be
 * read, an odd row, any unexpected error inside one day's report is caught, counted and written
 * in the run's errors, and the other days and the other report go ahead. The run is recorded in
 * `recovery_runs` when it starts and completed when it ends, whatever happened in between. Only
 * a run that lost its lease stops early: another instance may be running recovery.
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
  /** The lease the run holds (see lease.ts); without one, nothing guards against a second run. */
  lease?: Lease;
  /** Read from this page (1-based) of each report, leaving the stored position alone. */
  fromPage?: number;
  /** Most pages of each report read in this run (default 100). */
  pages?: number;
  /** Rows per page (default 1000, the platform's largest). */
  pageSize?: number;
}

export interface RecoverySummary {
  /** The run's row in recovery_runs (row problems name it). */
  runId?: string;
  days: readonly string[];
  notifications: NotificationTally;
  payto: PaytoTally | undefined;
  /** Each report as read: pages, rows, read to its end or where the next run goes on. */
  reports?: ReportReading[];
  /** Reports that could not be read, or failed part-way, with why. */
  errors: string[];
  /** The run stopped because another took its lease. */
  leaseLost?: boolean;
  /**
   * Every report read, every row usable, every resend accepted, none left for a later run by the
   * resend budget (PayTo findings aside).
   */
  ok: boolean;
  /**
   * Something the operator must look at: the run failed, PayTo receipts are unmatched or
   * unreadable, or a report is not read to its end yet (the next run goes on).
   */
  needsAttention: boolean;
}

export async function runRecovery(options: RecoveryOptions): Promise<RecoverySummary> {
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const notifications = emptyTally();
  const payto = options.payto === false ? undefined : emptyPaytoTally();
  const errors: string[] = [];
  const reports: ReportReading[] = [];
  let leaseLost = false;
  const runs = createRunsRepository(options.db);
  const runId = await runs.start({
    startedAt,
    days: options.days,
    holder: options.lease?.holder,
  });
  const run: RunContext = {
    runId,
    runs,
    problems: createRowProblemsRepository(options.db),
    now,
    pages: {
      fromPage: options.fromPage,
      maxPages: options.pages ?? DEFAULT_MAX_PAGES,
      pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE,
    },
    lease: options.lease,
    say: options.progress,
  };
  const common = { client: options.client, logger: options.logger, now, run };
  const resend = {
    ...common,
    attempts: createAttemptsRepository(options.db),
    policy: options.policy ?? DEFAULT_RESEND_POLICY,
    considered: new Set<string>(),
    asked: { count: 0 },
    lease: options.lease,
  };
  const paytoRepository = createPaytoRepository(options.db);

  /** Runs one report; whatever it throws is an error of the run, counted and recorded. */
  async function guarded(
    day: string,
    kind: ReportKind,
    work: (reading: ReportReading) => Promise<void>,
  ): Promise<void> {
    const what = `${day} ${kind === 'delivery' ? 'delivery' : 'PayTo'} report`;
    if (leaseLost) return;
    if (options.lease?.lost) {
      leaseLost = true;
      errors.push(`${what}: lease lost; stopped before it (another run may have taken over)`);
      return;
    }
    const reading = newReading(day, kind);
    reports.push(reading);
    try {
      await work(reading);
    } catch (error) {
      if (error instanceof LeaseLostError) {
        leaseLost = true;
        errors.push(`${what}: lease lost; stopped (another run may have taken over)`);
      } else if (error instanceof ProviderError) {
        errors.push(storableText(`${what}: ${error.message}`, 1000));
      } else {
        errors.push(storableText(`${what}: unexpected error: ${String(error)}`, 1000));
        options.logger.error({ err: error, day, report: kind }, 'recovery report failed');
      }
      options.progress?.(`ERROR ${errors.at(-1) ?? ''}`);
    }
  }

  let summary: RecoverySummary | undefined;
  try {
    for (const day of options.days) {
      await guarded(day, 'delivery', (reading) =>
        resendMissing(resend, day, notifications, reading),
      );
      if (payto) {
        await guarded(day, 'payto', (reading) =>
          reconcilePayto({ ...common, payto: paytoRepository }, day, payto, reading),
        );
      }
    }
  } catch (error) {
    // guarded() catches everything; this is for a fault in the loop itself.
    errors.push(storableText(`unexpected error: ${String(error)}`, 1000));
  } finally {
    // Rows left for a later run by the resend budget are not recovered yet: not ok (issue 24).
    const ok =
      errors.length === 0 &&
      !leaseLost &&
      notifications.failed === 0 &&
      notifications.unreadable === 0 &&
      notifications.overBudget === 0;
    const pending = reports.some((r) => !r.complete && r.resumesAtPage !== undefined);
    summary = {
      runId,
      days: options.days,
      notifications,
      payto,
      reports,
      errors,
      leaseLost,
      ok,
      needsAttention: !ok || pending || (payto?.unmatched ?? 0) > 0 || (payto?.unreadable ?? 0) > 0,
    };
    await runs.finish(runId, { finishedAt: now(), ok, summary: storableJson(summary) });
  }
  options.logger[summary.ok ? 'info' : 'error']({ recovery: summary }, 'recovery run finished');
  return summary;
}

/** JSON that jsonb accepts: a NUL in any string (an error message) written as U+FFFD. */
function storableJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    typeof inner === 'string' ? inner.replaceAll('\u0000', '\uFFFD') : inner,
  );
}
