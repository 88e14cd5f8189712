import { sql, type RawBuilder } from 'kysely';
import {
  batchUntilShort,
  countRows,
  MIN_INSTANT,
  olderRowsStep,
  one,
  required,
  type PruneStep,
} from '../../lib/database/prune-step.ts';

/** The recovery records' prune steps (docs/retention.md), in the order a run takes them. */

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
const rowProblemsStep: PruneStep = olderRowsStep({
  table: 'recovery_row_problems',
  time: 'last_seen_at',
  cutoff: (c) => c.recovery,
});

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

export const recoveryPruneSteps: readonly PruneStep[] = [
  recoveryAttemptsStep,
  rowProblemsStep,
  recoveryRunsStep,
  recoveryProgressStep,
];
