import { parseArgs } from 'node:util';
import { openToolDatabase } from '../storage/operator-database.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { providerClientFromConfig } from '../provider/client-from-config.ts';
import { todayAndYesterday } from '../provider/sydney-day.ts';
import { withProviderTables } from '../provider/tables.ts';
import { RECOVERY_LOCK_KEY, withTryLock } from './advisory-lock.ts';
import { runRecovery, type RecoverySummary } from './run-recovery.ts';

export const RECOVER_USAGE = `usage: npm run recover -- [--date YYYY-MM-DD ...] [--skip-payto]

Reads the platform's delivery report for each Sydney day (default: yesterday and today),
asks it to resend every notification it gave up on or that is not stored here, and records
PayTo receipts with no stored PayToReceivePayment. Prints a JSON summary.

  --date YYYY-MM-DD   a Sydney day (repeatable)
  --skip-payto        do not read the PayTo report
  --help              this help

Exit 0: nothing left to recover; 1: something could not be recovered (or PayTo receipts are
unmatched, or another recovery is running); 2: bad usage or configuration.`;

export interface RecoverIo {
  argv: readonly string[];
  env: Record<string, string | undefined>;
  out: (text: string) => void;
  err: (text: string) => void;
  projectDir: string;
  now?: () => number;
}

export async function runRecoverCli(io: RecoverIo): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: [...io.argv],
      options: {
        date: { type: 'string', multiple: true },
        'skip-payto': { type: 'boolean' },
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
    const outcome = await withTryLock(database.db, RECOVERY_LOCK_KEY, () =>
      runRecovery({
        db: withProviderTables(database.db),
        client: providerClientFromConfig(config.provider, logger, io.now ? { now: io.now } : {}),
        logger,
        days,
        payto: values['skip-payto'] !== true,
        progress: (line) => io.err(line),
      }),
    );
    if (!outcome.ran) {
      io.err(
        'another recovery is running (an instance of the service holds the lock); try again shortly',
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

function describe(s: RecoverySummary): string {
  const n = s.notifications;
  const lines = [
    `${s.days.join(', ')}: ${n.seen} seen, ${n.alreadyStored} already stored, ${n.resent} resent, ${n.failed} failed` +
      ` (${n.quarantined} quarantined, ${n.waiting} waiting for an earlier resend, ${n.inProgress} still being delivered)`,
  ];
  if (s.payto) {
    lines.push(
      `PayTo: ${s.payto.receipts} receipts, ${s.payto.matched} stored, ${s.payto.unmatched} with no stored notification (see payto_unmatched_receipts)`,
    );
  }
  for (const error of s.errors) lines.push(`ERROR ${error}`);
  return lines.join('\n');
}
