import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../../lib/config.ts';
import { createLogger } from '../../lib/logger.ts';
import { withLease } from '../../platform/index.ts';
import { openToolDatabase } from '../../lib/database/operator-database.ts';
import { RETENTION_LEASE, runPrune, type PruneSummary } from './prune.ts';

export const PRUNE_USAGE = `usage: npm run prune -- [--dry-run] [--max-batches N] [--max-seconds S]

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

export interface PruneIo {
  argv: readonly string[];
  env: Record<string, string | undefined>;
  out: (text: string) => void;
  err: (text: string) => void;
  projectDir: string;
}

export async function runPruneCli(io: PruneIo): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: [...io.argv],
      options: {
        'dry-run': { type: 'boolean' },
        'max-batches': { type: 'string' },
        'max-seconds': { type: 'string' },
        help: { type: 'boolean' },
      },
    }).values;
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${PRUNE_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(PRUNE_USAGE);
    return 0;
  }
  const maxBatches = wholeNumber(values['max-batches'], 'max-batches', 100_000_000);
  const maxSeconds = wholeNumber(values['max-seconds'], 'max-seconds', 31_536_000);
  const bad = [maxBatches, maxSeconds].find((v) => typeof v === 'string');
  if (bad !== undefined) {
    io.err(`${bad}\n\n${PRUNE_USAGE}`);
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
  const retention = {
    ...config.retention,
    ...(typeof maxSeconds === 'number' && { runMaxMs: maxSeconds * 1000 }),
  };
  const logger = createLogger(io.env.LOG_LEVEL ?? 'warn', process.stderr);
  const database = await openToolDatabase(config, logger, io.projectDir);
  try {
    const prune = {
      db: database.db,
      retention,
      relayConfigured: config.feed.relay !== undefined,
      progress: (line: string) => io.err(line),
      ...(typeof maxBatches === 'number' && { maxBatches }),
    };
    let summary: PruneSummary;
    if (values['dry-run']) {
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
      if (!outcome.ran) {
        const until = outcome.expiresAt ? ` until ${outcome.expiresAt.toISOString()}` : '';
        io.err(
          `another prune is running (${outcome.holder ?? 'another instance'} holds the lease${until}); try again shortly`,
        );
        return 1;
      }
      summary = outcome.result;
    }
    io.out(JSON.stringify(summary, null, 2));
    if (!summary.complete) {
      io.err(`stopped before the end (${summary.stoppedBy ?? 'unknown'}): run it again to go on`);
    }
    return summary.complete ? 0 : 1;
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
  const n = /^\d{1,9}$/.test(value) ? Number(value) : NaN;
  return n >= 1 && n <= max
    ? n
    : `--${name} must be a whole number from 1 to ${max} (got ${value})`;
}
