import { sql, type RawBuilder } from 'kysely';
import type { Db } from './database.ts';

/**
 * What a prune step is: one table's rows past their retention, removed as bounded batches (one
 * statement, so one short transaction) and counted for `--dry-run`. Every batch re-checks, in
 * the statement that changes the rows, everything that keeps a row: a batch run twice, or by
 * two instances at once (a lost lease), only repeats work, never removes what must stay. Each
 * module that owns tables with a retention declares its steps beside them (the receiver's
 * deliveries and quarantine rows, the feed's events, the platform's recovery records); the
 * command line composes them, and src/operations runs them (docs/retention.md).
 */

/** The instants before which rows may go, read from the database's clock once per run. */
export interface Cutoffs {
  /** Raw requests (deliveries, handled quarantine rows); undefined: kept for ever. */
  raw: string | undefined;
  /** Sent feed events. */
  feed: string | undefined;
  /** The feed's attempt log (feed_attempts). */
  feedAttempts: string | undefined;
  /** Recovery records, and the Sydney day before which report days are old. */
  recovery: string | undefined;
  recoveryDay: string | undefined;
}

export interface StepContext {
  cutoffs: Cutoffs;
  /**
   * A relay hands events on (FEED_HTTP_URL here, or its work seen in the data): a delivery whose
   * event is not yet sent keeps its raw request. Without one every event stays `pending` for
   * ever and says nothing about being read.
   */
  relayInUse: boolean;
  /**
   * Every feed event up to this position has been considered by every endpoint's fan-out (the
   * lowest cursor), read once before the steps: during a run the cursors only move up, so it is
   * never above the truth (an event it calls not yet considered is kept one run longer at most).
   * A parameter, so a plan can read the events above it through the position index.
   */
  fannedThrough: string;
}

/** Where the next batch of a step goes on (keyset), opaque to the loop. */
type Cursor = readonly string[];

interface BatchResult {
  rows: number;
  /** Nothing more for this step in this run. */
  done: boolean;
  cursor: Cursor;
}

interface CountResult {
  rows: number;
  /** Rows old enough that stay (dry run only; docs/retention.md says why). */
  held?: number;
  heldAt?: { position: string; state: string } | undefined;
}

export interface PruneStep {
  /** The table it prunes: how the run's summary, its log and its metrics name it. */
  name: string;
  /** What a row of this step is: `pruned` (raw columns cleared) or `deleted`. */
  action: 'pruned' | 'deleted';
  cutoff(c: Cutoffs): string | undefined;
  start: Cursor;
  /** One batch's statement (exposed so a test can EXPLAIN it). */
  statement(ctx: StepContext, cursor: Cursor, limit: number): RawBuilder<unknown>;
  batch(db: Db, ctx: StepContext, cursor: Cursor, limit: number): Promise<BatchResult>;
  count(db: Db, ctx: StepContext): Promise<CountResult>;
}

/** The start of a keyset cursor over instants. */
export const MIN_INSTANT = '-infinity';

/** The first row of a query's answer. */
export async function one<R>(db: Db, query: RawBuilder<R>): Promise<R> {
  const { rows } = await query.execute(db);
  return rows[0] as R;
}

async function rowCount(db: Db, query: RawBuilder<unknown>): Promise<number> {
  const result = await query.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * A step's batch when its statement picks the rows itself (no cursor to move): done once a
 * batch changes fewer rows than it was allowed to.
 */
export async function batchUntilShort(
  this: PruneStep,
  db: Db,
  ctx: StepContext,
  cursor: Cursor,
  limit: number,
): Promise<BatchResult> {
  const rows = await rowCount(db, this.statement(ctx, cursor, limit));
  return { rows, done: rows < limit, cursor };
}

/** A dry run's count: `rows` that would go and, where the query says, `held` (old, staying). */
export async function countRows(db: Db, query: RawBuilder<unknown>): Promise<CountResult> {
  const row = await one(db, query as RawBuilder<{ rows: string; held?: string }>);
  return {
    rows: Number(row.rows),
    ...(row.held !== undefined && { held: Number(row.held) }),
  };
}

/** A step's cutoff, which the run gives every step it runs (a step with none is `off`). */
export function required(value: string | undefined): string {
  if (value === undefined) throw new Error('a step ran without its cutoff');
  return value;
}

/**
 * A step for a log whose rows nothing else keeps: every row (by `id`) whose `time` is before
 * the cutoff goes, oldest first through the index on `time`, each batch taking rows no other
 * prune holds (SKIP LOCKED).
 */
export function olderRowsStep(options: {
  table: string;
  time: string;
  cutoff: (c: Cutoffs) => string | undefined;
  /**
   * Rows nobody else changes (an append-only log): no row locks, so the runtime role needs no
   * UPDATE on the table (FOR UPDATE asks for it). The prune runs under its lease either way.
   */
  appendOnly?: boolean;
}): PruneStep {
  const table = sql.table(options.table);
  const time = sql.ref(options.time);
  const before = (ctx: StepContext) =>
    sql`${time} < ${required(options.cutoff(ctx.cutoffs))}::timestamptz`;
  const lock = options.appendOnly ? sql`` : sql`FOR UPDATE SKIP LOCKED`;
  return {
    name: options.table,
    action: 'deleted',
    cutoff: options.cutoff,
    start: [],
    statement(ctx, _cursor, limit) {
      return sql`
        DELETE FROM ${table} WHERE id = ANY(ARRAY(
          SELECT id FROM ${table} WHERE ${before(ctx)}
          ORDER BY ${time} LIMIT ${limit} ${lock}))`;
    },
    batch: batchUntilShort,
    async count(db, ctx) {
      return countRows(db, sql`SELECT count(*) AS rows FROM ${table} WHERE ${before(ctx)}`);
    },
  };
}
