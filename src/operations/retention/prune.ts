import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Lease } from '../../lib/database/lease.ts';
import type { Db } from '../../lib/database/database.ts';
import type { PruneStep, StepContext } from '../../lib/database/prune-step.ts';
import { readCutoffs, readFannedThrough, relayInUse } from './prune-run-context.ts';
import type { RetentionConfig } from './settings.ts';

/**
 * One prune run (docs/retention.md): each step in turn (the modules' steps, composed by the
 * command line: src/cli/prune-steps.ts), in batches of `batchSize` rows (one
 * short statement each) with a pause between them, until the step has nothing left or the run's
 * budget (`runMaxMs`, and `maxBatches` when given) is spent; the next run goes on. Stops between
 * batches when asked to (shutdown) or when its lease is lost.
 */

/** `recoveryLeases.name` of the prune: one run at a time across instances and the CLI. */
export const RETENTION_LEASE = 'retention';

type RetentionSettings = RetentionConfig['retention'];

interface StepSummary {
  table: string;
  /** `pruned`: raw columns cleared, the row kept; `deleted`: the row removed. */
  action: 'pruned' | 'deleted';
  /** Rows pruned or deleted (with `dryRun`: that would be). */
  rows: number;
  /** Old enough, but kept (dry run only): see docs/retention.md for why. */
  held?: number;
  /** The feed's first event that must stay, where its pruning stops (dry run only). */
  heldAt?: { position: string; state: string } | undefined;
  batches: number;
  elapsedMs: number;
  /** off: its retention is 0; done: nothing left; partial: the run stopped first. */
  status: 'off' | 'done' | 'partial' | 'not-reached';
}

export interface PruneSummary {
  dryRun: boolean;
  /** How pending feed events were read (see relayInUse). */
  relay: 'configured' | 'detected' | 'none';
  cutoffs: {
    raw: string | null;
    feed: string | null;
    feedAttempts: string | null;
    recovery: string | null;
  };
  steps: StepSummary[];
  batches: number;
  elapsedMs: number;
  /** Every step has nothing left that may go. */
  complete: boolean;
  /** Why the run stopped before completing. */
  stoppedBy?: 'budget' | 'lease-lost' | 'stopped';
}

export interface PruneOptions {
  db: Db;
  /** What to prune, in this order: each module's steps (src/cli/prune-steps.ts). */
  steps: readonly PruneStep[];
  retention: Pick<
    RetentionSettings,
    | 'rawDays'
    | 'feedDays'
    | 'feedAttemptsDays'
    | 'recoveryDays'
    | 'batchSize'
    | 'batchPauseMs'
    | 'runMaxMs'
  >;
  /** FEED_HTTP_URL is set here (a relay hands events on). */
  relayConfigured: boolean;
  /** Count what would go; change nothing. */
  dryRun?: boolean;
  /** At most this many batches in the run (besides `runMaxMs`). */
  maxBatches?: number;
  /** The run's lease: once lost, no further batch starts. */
  lease?: Pick<Lease, 'lost'>;
  signal?: AbortSignal;
  /** One line now and then (each step's end, and every few seconds within a step). */
  progress?: (line: string) => void;
  now?: () => number;
}

const PROGRESS_EVERY_MS = 5000;

export async function runPrune(options: PruneOptions): Promise<PruneSummary> {
  const now = options.now ?? Date.now;
  const started = now();
  const { db, retention } = options;
  const cutoffs = await readCutoffs(db, retention);
  const relay = await relayInUse(db, options.relayConfigured);
  const context: StepContext = {
    cutoffs,
    relayInUse: relay !== 'none',
    fannedThrough: await readFannedThrough(db),
  };
  const summary: PruneSummary = {
    dryRun: options.dryRun ?? false,
    relay,
    cutoffs: {
      raw: cutoffs.raw ?? null,
      feed: cutoffs.feed ?? null,
      feedAttempts: cutoffs.feedAttempts ?? null,
      recovery: cutoffs.recovery ?? null,
    },
    steps: [],
    batches: 0,
    elapsedMs: 0,
    complete: false,
  };
  const say = options.progress ?? (() => {});
  say(
    `prune${summary.dryRun ? ' (dry run)' : ''}: raw before ${cutoffs.raw ?? 'never'}, sent feed events before ${cutoffs.feed ?? 'never'}, feed attempts before ${cutoffs.feedAttempts ?? 'never'}, recovery records before ${cutoffs.recovery ?? 'never'}; relay ${relay}`,
  );

  const stopReason = (): PruneSummary['stoppedBy'] => {
    if (options.signal?.aborted) return 'stopped';
    if (options.lease?.lost) return 'lease-lost';
    if (now() - started >= retention.runMaxMs) return 'budget';
    if (options.maxBatches !== undefined && summary.batches >= options.maxBatches) return 'budget';
    return undefined;
  };

  for (const step of options.steps) {
    const result: StepSummary = {
      table: step.name,
      action: step.action,
      rows: 0,
      batches: 0,
      elapsedMs: 0,
      status: 'not-reached',
    };
    summary.steps.push(result);
    if (step.cutoff(cutoffs) === undefined) {
      result.status = 'off';
      continue;
    }
    if (summary.stoppedBy) continue;
    const stepStarted = now();
    if (summary.dryRun) {
      Object.assign(result, await countStep(db, step, context), { status: 'done' });
    } else {
      const stoppedBy = await pruneStep(step, result, {
        options,
        context,
        stopReason,
        countBatch: () => (summary.batches += 1),
        say,
        now,
      });
      if (stoppedBy) summary.stoppedBy = stoppedBy;
      result.status = stoppedBy ? 'partial' : 'done';
    }
    result.elapsedMs = now() - stepStarted;
    say(describeStep(result, summary.dryRun));
  }
  summary.elapsedMs = now() - started;
  summary.complete = summary.steps.every((s) => s.status === 'off' || s.status === 'done');
  return summary;
}

async function pruneStep(
  step: PruneStep,
  result: StepSummary,
  run: {
    options: PruneOptions;
    context: StepContext;
    stopReason: () => PruneSummary['stoppedBy'];
    countBatch: () => void;
    say: (line: string) => void;
    now: () => number;
  },
): Promise<PruneSummary['stoppedBy']> {
  const { options, now } = run;
  let cursor = step.start;
  let lastSaid = now();
  for (;;) {
    const stop = run.stopReason();
    if (stop) return stop;
    const batch = await step.batch(options.db, run.context, cursor, options.retention.batchSize);
    run.countBatch();
    result.batches += 1;
    result.rows += batch.rows;
    cursor = batch.cursor;
    if (batch.done) return undefined;
    if (now() - lastSaid >= PROGRESS_EVERY_MS) {
      lastSaid = now();
      run.say(`${step.name}: ${result.rows} ${step.action} so far (${result.batches} batches)`);
    }
    await pause(options.retention.batchPauseMs, options.signal);
  }
}

async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0 || signal?.aborted) return;
  await sleep(ms, undefined, { signal }).catch(() => {});
}

/** A dry run's counts may read whole tables: without the pool's statement timeout. */
async function countStep(db: Db, step: PruneStep, context: StepContext) {
  return db.transaction().execute(async (trx) => {
    await sql`SET LOCAL statement_timeout = 0`.execute(trx);
    return step.count(trx, context);
  });
}

function describeStep(s: StepSummary, dryRun: boolean): string {
  if (s.status === 'off') return `${s.table}: kept (retention 0)`;
  if (s.status === 'not-reached') return `${s.table}: not reached in this run`;
  const verb = dryRun ? `would be ${s.action}` : s.action;
  const held = s.held ? `, ${s.held} old enough but kept` : '';
  const heldAt = s.heldAt ? `, stops at position ${s.heldAt.position} (${s.heldAt.state})` : '';
  const batches = dryRun ? '' : ` in ${s.batches} batches`;
  const partial = s.status === 'partial' ? ' (run stopped: the next run goes on)' : '';
  return `${s.table}: ${s.rows} ${verb}${held}${heldAt}${batches}, ${(s.elapsedMs / 1000).toFixed(1)} s${partial}`;
}
