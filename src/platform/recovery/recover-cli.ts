import { parseArgs } from 'node:util';
import { openToolDatabase } from '../../lib/database/operator-database.ts';
import { ConfigError, loadConfig } from '../../lib/config.ts';
import { createLogger } from '../../lib/logger.ts';
import { providerClientFromConfig } from '../client/client-from-config.ts';
import { DEFAULT_MAX_PAGES } from '../client/report-pages.ts';
import { todayAndYesterday } from '../../lib/sydney-time.ts';
import { withProviderTables } from '../storage/tables.ts';
import { RECOVERY_LEASE, withLease } from './lease.ts';
import { runRecovery, type RecoverySummary } from './run-recovery.ts';

export const RECOVER_USAGE = `usage: npm run recover -- [--date YYYY-MM-DD ...] [--skip-payto] [--from-page N] [--pages M]

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
  --help              this help

Exit 0: nothing left to recover; 1: something could not be recovered (or PayTo receipts are
unmatched, rows unreadable, a report not read to its end yet, or another recovery is
running); 2: bad usage or configuration.`;

export interface RecoverIo {
  argv: readonly string[];
  env: Record<string, string | undefined>;
  out: (text: string) => void;
  err: (text: string) => void;
  projectDir: string;
  now?: () => number;
}

const MAX_PAGES_OPTION = 100_000;

export async function runRecoverCli(io: RecoverIo): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: [...io.argv],
      options: {
        date: { type: 'string', multiple: true },
        'skip-payto': { type: 'boolean' },
        'from-page': { type: 'string' },
        pages: { type: 'string' },
        help: { type: 'boolean' },
      },
    }).values;
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${RECOVER_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(RECOVER_USAGE);
    return 0;
  }
  const days = values.date ?? todayAndYesterday((io.now ?? Date.now)());
  const bad = days.filter((day) => !/^\d{4}-\d{2}-\d{2}$/.test(day));
  if (bad.length > 0) {
    io.err(`--date must be YYYY-MM-DD (got ${bad.join(', ')})\n\n${RECOVER_USAGE}`);
    return 2;
  }
  const fromPage = wholeNumber(values['from-page'], 'from-page', 1_000_000);
  const pages = wholeNumber(values.pages, 'pages', MAX_PAGES_OPTION);
  if (typeof fromPage === 'string' || typeof pages === 'string') {
    io.err(`${[fromPage, pages].find((v) => typeof v === 'string')}\n\n${RECOVER_USAGE}`);
    return 2;
  }
  let config;
  try {
    config = loadConfig(io.env, { receivesDeliveries: false });
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(error.message);
      return 2;
    }
    throw error;
  }
  const logger = createLogger(io.env.LOG_LEVEL ?? 'warn', process.stderr);
  const database = await openToolDatabase(config, logger, io.projectDir);
  try {
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
        }),
      {
        holderPrefix: `recover-cli:${process.pid}`,
        onProblem: (message, error) => logger.warn({ err: error }, message),
      },
    );
    if (!outcome.ran) {
      const until = outcome.expiresAt ? ` until ${outcome.expiresAt.toISOString()}` : '';
      io.err(
        `another recovery is running (${outcome.holder ?? 'another instance'} holds the lease${until}); try again shortly`,
      );
      return 1;
    }
    io.out(JSON.stringify(outcome.result, null, 2));
    io.err(describe(outcome.result));
    return outcome.result.needsAttention ? 1 : 0;
  } finally {
    await database.close();
  }
}

/** A whole number 1..max, undefined when absent, or the usage error as text. */
function wholeNumber(
  value: string | undefined,
  name: string,
  max: number,
): number | string | undefined {
  if (value === undefined) return undefined;
  const n = /^\d{1,7}$/.test(value) ? Number(value) : NaN;
  return n >= 1 && n <= max
    ? n
    : `--${name} must be a whole number from 1 to ${max} (got ${value})`;
}

function describe(s: RecoverySummary): string {
  const n = s.notifications;
  const lines = [
    `${s.days.join(', ')}: ${n.seen} rows, ${n.alreadyStored} already stored, ${n.resent} resent, ${n.failed} failed` +
      ` (${n.quarantined} quarantined, ${n.waiting} waiting for an earlier resend, ${n.inProgress} still being delivered,` +
      ` ${n.unreadable} unreadable, ${n.duplicates} listed again)`,
  ];
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
      lines.push(
        `${report.day} ${report.kind} report: not read to its end; the next run goes on from page ${report.resumesAtPage}`,
      );
    }
  }
  for (const error of s.errors) lines.push(`ERROR ${error}`);
  return lines.join('\n');
}
