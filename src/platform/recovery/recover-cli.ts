import {
  leaseHeld,
  parseOptions,
  wholeNumber,
  type OperatorIo,
} from '../../lib/command-options.ts';
import type { ConfigLoader } from '../../lib/config/load-settings.ts';
import { withOperatorDatabase } from '../../lib/database/operator-database.ts';
import type { DatabaseConfig } from '../../lib/database/settings.ts';
import { UsageError } from '../../lib/usage-error.ts';
import { providerClientFromConfig } from '../client/client-from-config.ts';
import type { ProviderClientConfig } from '../client/settings.ts';
import { DEFAULT_MAX_PAGES } from '../client/report-pages.ts';
import { todayAndYesterday } from '../../lib/sydney-time.ts';
import { withProviderTables } from '../storage/tables.ts';
import { withLease } from '../../lib/database/lease.ts';
import { RECOVERY_LEASE } from './recovery-scheduler.ts';
import { DEFAULT_RESEND_POLICY } from './resend-missing.ts';
import { runRecovery, type RecoverySummary } from './run-recovery.ts';

export const RECOVER_USAGE = `usage: npm run recover -- [--date YYYY-MM-DD ...] [--skip-payto] [--from-page N] [--pages M] [--max-resends R]

Reads the platform's delivery report for each Sydney day (default: yesterday and today),
asks it to resend every notification it gave up on or that is not stored here, and records
PayTo receipts with no stored PayToReceivePayment. Reports are read in pages of 1000 rows, at
most ${DEFAULT_MAX_PAGES} pages of each report per run; a longer report is read on from where the
last run stopped. Rows that cannot be read are recorded in recovery_row_problems and skipped.
Shows each page on stderr as it goes; prints a JSON summary.

  --date YYYY-MM-DD   a Sydney day (repeatable)
  --skip-payto        do not read the PayTo report
  --from-page N       read each report from page N (1-based) instead of going on from where
                      the last run stopped; where the next run goes on is left as it is
  --pages M           read at most M pages of each report (default ${DEFAULT_MAX_PAGES})
  --max-resends R     ask for at most R resends in this run (default ${DEFAULT_RESEND_POLICY.maxResendsPerRun});
                      once spent, a report stops on the page with rows still to resend and the
                      next run goes on from that page
  --help              this help

Exit 0: nothing left to recover; 1: something could not be recovered (or PayTo receipts are
unmatched, rows unreadable, a report not read to its end yet, rows left for the next run by
the resend budget, or another recovery is running); 2: bad usage or configuration.`;

const MAX_PAGES_OPTION = 100_000;
const MAX_RESENDS_OPTION = 1_000_000;

/**
 * `main.ts recover [options]`: answers the exit code; bad usage or configuration throws. The
 * configuration is the whole service's, as src/cli/config.ts composes it (`loadConfig`), read
 * once the options are.
 */
export async function runRecoverCli(
  io: OperatorIo,
  loadConfig: ConfigLoader<ProviderClientConfig & DatabaseConfig>,
): Promise<number> {
  const values = parseOptions(
    io,
    {
      date: { type: 'string', multiple: true },
      'skip-payto': { type: 'boolean' },
      'from-page': { type: 'string' },
      pages: { type: 'string' },
      'max-resends': { type: 'string' },
      help: { type: 'boolean' },
    },
    RECOVER_USAGE,
  );
  if (!values) return 0;
  const days = values.date ?? todayAndYesterday((io.now ?? Date.now)());
  const bad = days.filter((day) => !/^\d{4}-\d{2}-\d{2}$/.test(day));
  if (bad.length > 0) {
    throw new UsageError(`--date must be YYYY-MM-DD (got ${bad.join(', ')})`, RECOVER_USAGE);
  }
  const fromPage = wholeNumber(values['from-page'], 'from-page', 1_000_000, RECOVER_USAGE);
  const pages = wholeNumber(values.pages, 'pages', MAX_PAGES_OPTION, RECOVER_USAGE);
  const maxResends = wholeNumber(
    values['max-resends'],
    'max-resends',
    MAX_RESENDS_OPTION,
    RECOVER_USAGE,
  );
  return withOperatorDatabase(io, loadConfig, async ({ config, logger, database }) => {
    const outcome = await withLease(
      database.db,
      RECOVERY_LEASE,
      (lease) =>
        runRecovery({
          db: withProviderTables(database.db),
          client: providerClientFromConfig(config.provider, logger, io.now ? { now: io.now } : {}),
          logger,
          days,
          payto: values['skip-payto'] !== true,
          progress: (line) => io.err(line),
          lease,
          ...(fromPage !== undefined && { fromPage }),
          ...(pages !== undefined && { pages }),
          ...(maxResends !== undefined && {
            policy: { ...DEFAULT_RESEND_POLICY, maxResendsPerRun: maxResends },
          }),
        }),
      {
        holderPrefix: `recover-cli:${process.pid}`,
        onProblem: (message, error) => logger.warn({ err: error }, message),
      },
    );
    if (!outcome.ran) {
      io.err(leaseHeld('recovery', outcome));
      return 1;
    }
    io.out(JSON.stringify(outcome.result, null, 2));
    io.err(describe(outcome.result));
    return outcome.result.needsAttention ? 1 : 0;
  });
}

function describe(s: RecoverySummary): string {
  const n = s.notifications;
  const lines = [
    `${s.days.join(', ')}: ${n.seen} rows, ${n.alreadyStored} already stored, ${n.resent} resent, ${n.failed} failed` +
      ` (${n.retried} of them again at once after a failed resend, ${n.quarantined} quarantined,` +
      ` ${n.waiting} waiting for an earlier resend, ${n.inProgress} still being delivered,` +
      ` ${n.unreadable} unreadable, ${n.duplicates} listed again)`,
  ];
  if (n.overBudget > 0) {
    lines.push(
      `${n.overBudget} to resend left for the next run: the resend budget is spent (--max-resends)`,
    );
  }
  if (s.payto) {
    lines.push(
      `PayTo: ${s.payto.receipts} receipts, ${s.payto.matched} stored, ${s.payto.unmatched} with no stored notification (see payto_unmatched_receipts), ${s.payto.unreadable} unreadable`,
    );
  }
  if (n.unreadable > 0 || (s.payto?.unreadable ?? 0) > 0) {
    lines.push(`unreadable rows: see recovery_row_problems (last_run_id ${s.runId ?? '?'})`);
  }
  for (const report of s.reports ?? []) {
    if (report.resumesAtPage !== undefined) {
      const why = report.stoppedOnBudget
        ? 'stopped where the resend budget ran out'
        : 'not read to its end';
      lines.push(
        `${report.day} ${report.kind} report: ${why}; the next run goes on from page ${report.resumesAtPage}`,
      );
    }
  }
  for (const error of s.errors) lines.push(`ERROR ${error}`);
  return lines.join('\n');
}
