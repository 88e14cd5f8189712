import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../lib/database/database.ts';

/**
 * What the prune removes, one step per table, each as a bounded batch (one statement, so one
 * short transaction) and as a count for `--dry-run`. Every batch re-checks, in the statement
 * that changes the rows, everything that keeps a row: a batch run twice, or by two instances at
 * once (a lost lease), only repeats work, never removes what must stay. docs/retention.md says
 * what goes when, and why.
 */

export type StepName =
  | 'quarantined_deliveries'
  | 'recovery_attempts'
  | 'recovery_row_problems'
  | 'recovery_runs'
  | 'recovery_progress'
  | 'feed_events'
  | 'webhook_deliveries';

/** The instants before which rows may go, read from the database's clock once per run. */
export interface Cutoffs {
  /** Raw requests (deliveries, handled quarantine rows); undefined: kept for ever. */
  raw: string | undefined;
  /** Sent feed events. */
  feed: string | undefined;
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
  name: StepName;
  /** What a row of this step is: `pruned` (raw columns cleared) or `deleted`. */
  action: 'pruned' | 'deleted';
  cutoff(c: Cutoffs): string | undefined;
  start: Cursor;
  /** One batch's statement (exposed so a test can EXPLAIN it). */
  statement(ctx: StepContext, cursor: Cursor, limit: number): RawBuilder<unknown>;
  batch(db: Db, ctx: StepContext, cursor: Cursor, limit: number): Promise<BatchResult>;
  count(db: Db, ctx: StepContext): Promise<CountResult>;
}

const MIN_INSTANT = '-infinity';

async function one<R>(db: Db, query: RawBuilder<R>): Promise<R> {
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
async function batchUntilShort(
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
async function countRows(db: Db, query: RawBuilder<unknown>): Promise<CountResult> {
  const row = await one(db, query as RawBuilder<{ rows: string; held?: string }>);
  return {
    rows: Number(row.rows),
    ...(row.held !== undefined && { held: Number(row.held) }),
  };
}

function required(value: string | undefined): string {
  if (value === undefined) throw new Error('a step ran without its cutoff');
  return value;
}

/**
 * Why a delivery keeps its raw request past the retention: a feed event of it not yet numbered,
 * not yet sent while a relay is in use (pending or dead), or dead (a dead letter waits for an
 * operator's re-drive, which sends the payload); or an open conflict it is part of (an
 * operator's open question about exactly these deliveries).
 */
function deliveryKept(alias: string, relayInUse: boolean): RawBuilder<unknown> {
  const c = sql.ref(`${alias}.webhook_id`);
  return sql`(
    ${eventsNotHandedOn(c, relayInUse)}
    OR EXISTS (SELECT 1 FROM conflicts k WHERE k.webhook_id = ${c} AND k.resolved_at IS NULL)
    OR EXISTS (SELECT 1 FROM conflicts k WHERE k.first_webhook_id = ${c} AND k.resolved_at IS NULL)
  )`;
}

/** A feed event with this Webhookid not yet numbered, dead, or (with a relay) not yet sent. */
function eventsNotHandedOn(webhookId: RawBuilder<unknown>, relayInUse: boolean) {
  return sql`(
    EXISTS (SELECT 1 FROM feed_events e WHERE e.webhook_id = ${webhookId} AND e.position IS NULL)
    OR EXISTS (SELECT 1 FROM feed_events e WHERE e.webhook_id = ${webhookId}
      AND e.relay_state <> 'sent' AND e.position IS NOT NULL
      ${relayInUse ? sql`` : sql`AND e.relay_state = 'dead'`})
  )`;
}

/**
 * Why a handled quarantine row keeps its body: as for a delivery, a feed event not handed on,
 * found by its Webhookid or, when the feed has quarantine events (a `quarantine_id` column, read
 * through to_jsonb so this statement works with or without it), by the row itself. Without a
 * Webhookid (a malformed header) that reads the backlog of events not yet handed on, which a
 * relay keeps small.
 */
function quarantineKept(alias: string, relayInUse: boolean): RawBuilder<unknown> {
  const q = (column: string) => sql.ref(`${alias}.${column}`);
  return sql`(
    ${eventsNotHandedOn(q('webhook_id'), relayInUse)}
    OR (${q('webhook_id')} IS NULL AND (
      EXISTS (SELECT 1 FROM feed_events e WHERE e.position IS NULL
        AND to_jsonb(e) ->> 'quarantine_id' = ${q('id')}::text)
      OR EXISTS (SELECT 1 FROM feed_events e
        WHERE e.relay_state <> 'sent' AND e.position IS NOT NULL
          ${relayInUse ? sql`` : sql`AND e.relay_state = 'dead'`}
          AND to_jsonb(e) ->> 'quarantine_id' = ${q('id')}::text)))
  )`;
}

/**
 * Deliveries: raw_body, headers and payload set to null (pruned_at set); the row, its
 * Webhookid, body digest (deduplication), event name, time and warnings stay, and so do its
 * typed rows. In (received_at, webhook_id) order through the partial index of unpruned rows;
 * the cursor moves past rows that stay, so a run does not read them twice.
 */
const deliveriesStep: PruneStep = {
  name: 'webhook_deliveries',
  action: 'pruned',
  cutoff: (c) => c.raw,
  start: [MIN_INSTANT, '-1'],
  statement(ctx, [afterAt, afterId], limit) {
    return sql`
        WITH batch AS (
          SELECT c.webhook_id FROM webhook_deliveries c
          WHERE c.pruned_at IS NULL AND c.received_at < ${required(ctx.cutoffs.raw)}::timestamptz
            AND (c.received_at, c.webhook_id) > (${afterAt}::timestamptz, ${afterId}::bigint)
            AND NOT ${deliveryKept('c', ctx.relayInUse)}
          ORDER BY c.received_at, c.webhook_id
          LIMIT ${limit}
          FOR UPDATE OF c SKIP LOCKED
        ),
        pruned AS (
          UPDATE webhook_deliveries d
             SET raw_body = NULL, headers = NULL, payload = NULL, pruned_at = now()
            FROM batch WHERE d.webhook_id = batch.webhook_id
          RETURNING d.received_at, d.webhook_id
        )
        SELECT count(*) OVER ()::int AS n, received_at::text AS at, webhook_id::text AS id
        FROM pruned ORDER BY received_at DESC, webhook_id DESC LIMIT 1`;
  },
  async batch(db, ctx, cursor, limit) {
    const [afterAt, afterId] = cursor;
    const row = await one(
      db,
      this.statement(ctx, cursor, limit) as RawBuilder<
        { n: number; at: string; id: string } | undefined
      >,
    );
    if (!row) return { rows: 0, done: true, cursor: [afterAt ?? MIN_INSTANT, afterId ?? '-1'] };
    return { rows: row.n, done: row.n < limit, cursor: [row.at, row.id] };
  },
  async count(db, ctx) {
    return countRows(
      db,
      sql`
        SELECT count(*) FILTER (WHERE NOT kept) AS rows, count(*) FILTER (WHERE kept) AS held
        FROM (
          SELECT ${deliveryKept('c', ctx.relayInUse)} AS kept FROM webhook_deliveries c
          WHERE c.pruned_at IS NULL AND c.received_at < ${required(ctx.cutoffs.raw)}::timestamptz
        ) AS old`,
    );
  },
};

/**
 * Handled quarantine rows (re-driven or marked by an operator) whose handling is older than the
 * raw retention: body and headers cleared (to an empty body and `{}`, the columns stay NOT NULL
 * for the quarantine tools), pruned_at set. Open rows are never touched, nor a row with a feed
 * event not handed on (see quarantineKept).
 */
const quarantineStep: PruneStep = {
  name: 'quarantined_deliveries',
  action: 'pruned',
  cutoff: (c) => c.raw,
  start: [],
  statement(ctx, _cursor, limit) {
    return sql`
        UPDATE quarantined_deliveries
           SET raw_body = ''::bytea, headers = '{}'::jsonb, pruned_at = now()
         WHERE handled_at IS NOT NULL AND id = ANY(ARRAY(
           SELECT q.id FROM quarantined_deliveries q
           WHERE q.handled_at IS NOT NULL AND q.pruned_at IS NULL
             AND q.handled_at < ${required(ctx.cutoffs.raw)}::timestamptz
             AND NOT ${quarantineKept('q', ctx.relayInUse)}
           ORDER BY q.handled_at, q.id
           LIMIT ${limit}
           FOR UPDATE SKIP LOCKED))`;
  },
  batch: batchUntilShort,
  async count(db, ctx) {
    return countRows(
      db,
      sql`
        SELECT count(*) FILTER (WHERE handled AND NOT kept) AS rows,
          count(*) FILTER (WHERE NOT handled OR kept) AS held
        FROM (
          SELECT q.handled_at IS NOT NULL AS handled, ${quarantineKept('q', ctx.relayInUse)} AS kept
          FROM quarantined_deliveries q
          WHERE q.pruned_at IS NULL
            AND coalesce(q.handled_at, q.received_at) < ${required(ctx.cutoffs.raw)}::timestamptz
        ) AS old`,
    );
  },
};

/**
 * Sent feed events, as a prefix of the feed only: from the lowest position up to (not
 * including) the first event that must stay (pending, dead, or sent within the retention). The
 * feed that remains is gapless, so `position > $last` still reads every event kept, and a
 * consumer further behind sees its next position missing (docs/retention.md). Without a relay
 * every event is pending, so none goes.
 */
export const feedEventsStep: PruneStep = {
  name: 'feed_events',
  action: 'deleted',
  cutoff: (c) => c.feed,
  start: ['0'],
  // Through prune_sent_feed_events() (migrations/2026-11-28T02-…): the runtime role has no
  // DELETE on feed_events, and the function deletes only sent events older than both this
  // cutoff and a day, as a prefix of the feed from `after` (issue 24, item 9).
  statement(ctx, [after], limit) {
    return sql`
        SELECT n, last FROM prune_sent_feed_events(${after}::bigint,
          ${required(ctx.cutoffs.feed)}::timestamptz, ${limit}::int)`;
  },
  async batch(db, ctx, cursor, limit) {
    const [after] = cursor;
    const row = await one(
      db,
      this.statement(ctx, cursor, limit) as RawBuilder<{ n: number; last: string | null }>,
    );
    return {
      rows: row.n,
      done: row.n < limit,
      cursor: [row.last ?? after ?? '0'],
    };
  },
  async count(db, ctx) {
    const cutoff = required(ctx.cutoffs.feed);
    const stop = await one(
      db,
      sql<{ position: string; state: string } | undefined>`
        SELECT position::text, CASE WHEN relay_state = 'sent' THEN 'sent within the retention'
          ELSE relay_state END AS state
        FROM feed_events
        WHERE position IS NOT NULL
          AND NOT coalesce(relay_state = 'sent' AND sent_at < ${cutoff}::timestamptz, false)
        ORDER BY position LIMIT 1`,
    );
    const counted = await countRows(
      db,
      sql`
        SELECT count(*) AS rows FROM feed_events
        WHERE position IS NOT NULL
          ${stop ? sql`AND position < ${stop.position}::bigint` : sql``}`,
    );
    return { ...counted, heldAt: stop };
  },
};

/**
 * Recovery attempts, a notification's whole history at once, once its newest attempt and every
 * report day it was listed on are older than the retention: until then every attempt counts
 * toward its limit of 3 resends. Scheduled recovery reads only today and yesterday, so a
 * notification whose history went is never listed again by it.
 */
const recoveryAttemptsStep: PruneStep = {
  name: 'recovery_attempts',
  action: 'deleted',
  cutoff: (c) => c.recovery,
  start: [MIN_INSTANT, '0'],
  statement(ctx, [afterAt, afterId], limit) {
    const cutoff = required(ctx.cutoffs.recovery);
    return sql`
        WITH old AS (
          SELECT id, webhook_id, attempted_at FROM recovery_attempts
          WHERE attempted_at < ${cutoff}::timestamptz
            AND (attempted_at, id) > (${afterAt}::timestamptz, ${afterId}::bigint)
          ORDER BY attempted_at, id
          LIMIT ${limit}
        ),
        gone AS (
          DELETE FROM recovery_attempts a
          -- An array, not IN (subquery): every planner then probes the webhook index for the
          -- batch's ids (a semi join may hash the whole table instead: Postgres 18 does).
          WHERE a.webhook_id = ANY (ARRAY(SELECT DISTINCT webhook_id FROM old))
            AND NOT EXISTS (
              SELECT 1 FROM recovery_attempts recent
              WHERE recent.webhook_id = a.webhook_id
                AND (recent.attempted_at >= ${cutoff}::timestamptz
                  OR recent.report_day >= ${required(ctx.cutoffs.recoveryDay)}::date))
          RETURNING a.id
        ),
        last AS (SELECT attempted_at, id FROM old ORDER BY attempted_at DESC, id DESC LIMIT 1)
        SELECT (SELECT count(*) FROM old)::int AS seen, (SELECT count(*) FROM gone)::int AS n,
          (SELECT attempted_at::text FROM last) AS at, (SELECT id::text FROM last) AS id`;
  },
  async batch(db, ctx, cursor, limit) {
    const [afterAt, afterId] = cursor;
    const row = await one(
      db,
      this.statement(ctx, cursor, limit) as RawBuilder<{
        seen: number;
        n: number;
        at: string | null;
        id: string | null;
      }>,
    );
    return {
      rows: row.n,
      done: row.seen < limit,
      cursor: [row.at ?? afterAt ?? MIN_INSTANT, row.id ?? afterId ?? '0'],
    };
  },
  async count(db, ctx) {
    return countRows(
      db,
      sql`
        SELECT count(*) FILTER (WHERE NOT kept) AS rows, count(*) FILTER (WHERE kept) AS held
        FROM (
          SELECT EXISTS (
              SELECT 1 FROM recovery_attempts recent
              WHERE recent.webhook_id = a.webhook_id
                AND (recent.attempted_at >= ${required(ctx.cutoffs.recovery)}::timestamptz
                  OR recent.report_day >= ${required(ctx.cutoffs.recoveryDay)}::date)
            ) AS kept
          FROM recovery_attempts a
          WHERE a.attempted_at < ${required(ctx.cutoffs.recovery)}::timestamptz
        ) AS old`,
    );
  },
};

/** Unreadable report rows not seen again within the retention (before the runs they name). */
const rowProblemsStep: PruneStep = {
  name: 'recovery_row_problems',
  action: 'deleted',
  cutoff: (c) => c.recovery,
  start: [],
  statement(ctx, _cursor, limit) {
    return sql`
        DELETE FROM recovery_row_problems WHERE id = ANY(ARRAY(
          SELECT id FROM recovery_row_problems
          WHERE last_seen_at < ${required(ctx.cutoffs.recovery)}::timestamptz
          ORDER BY last_seen_at LIMIT ${limit} FOR UPDATE SKIP LOCKED))`;
  },
  batch: batchUntilShort,
  async count(db, ctx) {
    return countRows(
      db,
      sql`
        SELECT count(*) AS rows FROM recovery_row_problems
        WHERE last_seen_at < ${required(ctx.cutoffs.recovery)}::timestamptz`,
    );
  },
};

/**
 * Recovery runs that finished (or, never finishing, started) before the retention. No row lock
 * first: nothing writes a run that old, and a second prune's DELETE only waits and skips.
 */
const recoveryRunsStep: PruneStep = {
  name: 'recovery_runs',
  action: 'deleted',
  cutoff: (c) => c.recovery,
  start: [],
  statement(ctx, _cursor, limit) {
    const cutoff = required(ctx.cutoffs.recovery);
    return sql`
        DELETE FROM recovery_runs WHERE id = ANY(ARRAY(
          SELECT id FROM (
            (SELECT id FROM recovery_runs WHERE finished_at < ${cutoff}::timestamptz
             ORDER BY finished_at LIMIT ${limit})
            UNION ALL
            (SELECT id FROM recovery_runs
             WHERE finished_at IS NULL AND started_at < ${cutoff}::timestamptz LIMIT ${limit})
          ) AS old LIMIT ${limit}))`;
  },
  batch: batchUntilShort,
  async count(db, ctx) {
    const cutoff = required(ctx.cutoffs.recovery);
    return countRows(
      db,
      sql`
        SELECT count(*) AS rows FROM recovery_runs
        WHERE finished_at < ${cutoff}::timestamptz
           OR (finished_at IS NULL AND started_at < ${cutoff}::timestamptz)`,
    );
  },
};

/** Where recovery goes on reading an old report day: that day is never read again by it. */
const recoveryProgressStep: PruneStep = {
  name: 'recovery_progress',
  action: 'deleted',
  cutoff: (c) => c.recoveryDay,
  start: [],
  statement(ctx, _cursor, limit) {
    return sql`
        DELETE FROM recovery_progress WHERE (report_day, report_kind) IN (
          SELECT report_day, report_kind FROM recovery_progress
          WHERE report_day < ${required(ctx.cutoffs.recoveryDay)}::date
          ORDER BY report_day LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
  },
  batch: batchUntilShort,
  async count(db, ctx) {
    return countRows(
      db,
      sql`
        SELECT count(*) AS rows FROM recovery_progress
        WHERE report_day < ${required(ctx.cutoffs.recoveryDay)}::date`,
    );
  },
};

/** In the order a run takes them: the small tables first, the two large ones last. */
export const PRUNE_STEPS: readonly PruneStep[] = [
  quarantineStep,
  recoveryAttemptsStep,
  rowProblemsStep,
  recoveryRunsStep,
  recoveryProgressStep,
  feedEventsStep,
  deliveriesStep,
];

/** The cutoffs for these retentions (0 days: that kind is kept), by the database's clock. */
export async function readCutoffs(
  db: Db,
  days: { rawDays: number; feedDays: number; recoveryDays: number },
): Promise<Cutoffs> {
  const row = await one(
    db,
    sql<{ raw: string; feed: string; recovery: string; recovery_day: string }>`
      SELECT (now() - ${days.rawDays}::int * interval '1 day')::text AS raw,
        (now() - ${days.feedDays}::int * interval '1 day')::text AS feed,
        (now() - ${days.recoveryDays}::int * interval '1 day')::text AS recovery,
        ((now() - ${days.recoveryDays}::int * interval '1 day')
          AT TIME ZONE 'Australia/Sydney')::date::text AS recovery_day`,
  );
  return {
    raw: days.rawDays > 0 ? row.raw : undefined,
    feed: days.feedDays > 0 ? row.feed : undefined,
    recovery: days.recoveryDays > 0 ? row.recovery : undefined,
    recoveryDay: days.recoveryDays > 0 ? row.recovery_day : undefined,
  };
}

/**
 * Whether a relay hands events on. FEED_HTTP_URL here says so; without it, the data may still
 * show a relay at work elsewhere (an operator's shell without the service's environment): the
 * relay paused, or among the newest 1,000 numbered events one sent or being retried. Then
 * pending events are treated as undelivered all the same, so the prune never trusts a
 * configuration that is only missing here. (Dead letters are not a sign: they keep their
 * deliveries either way, and outlive a relay that was removed.)
 */
export async function relayInUse(
  db: Db,
  configured: boolean,
): Promise<'configured' | 'detected' | 'none'> {
  if (configured) return 'configured';
  const row = await one(
    db,
    sql<{ seen: boolean }>`
      SELECT coalesce((SELECT paused FROM feed_relay_control), false)
        OR EXISTS (
          SELECT 1 FROM (
            SELECT relay_state, attempts FROM feed_events
            WHERE position IS NOT NULL ORDER BY position DESC LIMIT 1000
          ) AS newest
          WHERE relay_state = 'sent' OR (relay_state = 'pending' AND attempts > 0)
        ) AS seen`,
  );
  return row.seen ? 'detected' : 'none';
}
