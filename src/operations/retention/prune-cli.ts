import type { CommandDescription, OperatorIo } from '../../lib/command-line/command-description.ts';
import { NotDone } from '../../lib/command-line/errors.ts';
import { wholeNumber } from '../../lib/command-line/whole-number.ts';
import type { ConfigLoader } from '../../lib/config/load-settings.ts';
import { withOperatorDatabase } from '../../lib/database/operator-database.ts';
import type { DatabaseConfig } from '../../lib/database/settings.ts';
import { leaseHeld, withLease } from '../../lib/database/lease.ts';
import type { PruneStep } from '../../lib/database/prune-step.ts';
import { RETENTION_LEASE, runPrune, type PruneSummary } from './prune.ts';
import type { RetentionConfig } from './settings.ts';

const PRUNE_USAGE = `usage: npm run prune -- [--dry-run] [--max-batches N] [--max-seconds S]

Prunes what is older than its retention (docs/retention.md), in batches, as the service's
scheduled prune does, and prints a JSON summary; progress goes to stderr.

  raw request (raw_body, headers, payload) of deliveries older than RETENTION_RAW_DAYS (90),
    and of quarantine rows handled longer ago than that (open ones are never touched);
    never while a feed event of the delivery is not yet sent (with a relay) or dead
  feed events sent longer than RETENTION_FEED_DAYS (30) ago, from the start of the feed up to
    the first one that must stay (pending and dead events never go)
  recovery attempts, runs, unreadable report rows and progress older than
    RETENTION_RECOVERY_DAYS (90)
  typed rows, conflicts, refunds and open quarantine rows: never

  --dry-run          count what would go; change nothing
  --max-batches N    stop after N batches (default: only RETENTION_RUN_MAX_MS bounds the run)
  --max-seconds S    stop starting batches after S seconds (default RETENTION_RUN_MAX_MS)
  --help             this help

RETENTION_BATCH_SIZE rows per batch, RETENTION_BATCH_PAUSE_MS between batches; a retention of
0 keeps that kind for ever. FEED_HTTP_URL should be set as for the service (without it the
prune still treats pending events as undelivered when the data shows a relay at work).

Exit 0: nothing left that may go (or a dry run); 1: the run stopped first (budget, or another
prune holds the lease): run it again; 2: bad usage or configuration.`;

/**
 * `main.ts prune [options]` with these steps: prints the summary; a run that stopped first (or never started:
 * another holds the lease) is NotDone. The configuration is the whole service's, as
 * src/cli/config.ts composes it (`loadConfig`), read once the options are.
 */
export function pruneCommand(
  io: OperatorIo,
  loadConfig: ConfigLoader<RetentionConfig & DatabaseConfig>,
  steps: readonly PruneStep[],
): CommandDescription {
  return {
    name: 'prune',
    help: PRUNE_USAGE,
    options: [
      { flags: '--dry-run' },
      { flags: '--max-batches <N>', parse: wholeNumber(100_000_000) },
      { flags: '--max-seconds <S>', parse: wholeNumber(31_536_000) },
    ],
    run: ({ options }) => {
      const maxBatches = options.maxBatches as number | undefined;
      const maxSeconds = options.maxSeconds as number | undefined;
      return withOperatorDatabase(io, loadConfig, async ({ config, logger, database }) => {
        const prune = {
          db: database.db,
          steps,
          retention: {
            ...config.retention,
            ...(maxSeconds !== undefined && { runMaxMs: maxSeconds * 1000 }),
          },
          relayConfigured: config.feed.relay !== undefined,
          progress: (line: string) => io.err(line),
          ...(maxBatches !== undefined && { maxBatches }),
        };
        let summary: PruneSummary;
        if (options.dryRun === true) {
          summary = await runPrune({ ...prune, dryRun: true });
        } else {
          const outcome = await withLease(
            database.db,
            RETENTION_LEASE,
            (lease) => runPrune({ ...prune, lease }),
            {
              holderPrefix: `prune-cli:${process.pid}`,
              onProblem: (message, error) => logger.warn({ err: error }, message),
            },
          );
          if (!outcome.ran) throw new NotDone(leaseHeld('prune', outcome));
          summary = outcome.result;
        }
        io.out(JSON.stringify(summary, null, 2));
        if (!summary.complete) {
          throw new NotDone(
            `stopped before the end (${summary.stoppedBy ?? 'unknown'}): run it again to go on`,
          );
        }
      });
    },
  };
}
