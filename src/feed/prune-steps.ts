import { sql, type RawBuilder } from 'kysely';
import {
  countRows,
  olderRowsStep,
  one,
  required,
  type PruneStep,
} from '../lib/database/prune-step.ts';

/**
 * Feed events every endpoint has, as a prefix of the feed only: from the lowest position up to
 * (not including) the first event that must stay. One stays while an endpoint's cursor is below
 * it (not yet considered: a disabled or paused endpoint, or a fan-out that stalled, holds back
 * every later event), while one of its delivery rows is not sent (pending, dead) or was sent
 * within the retention, or while it was created within the retention. Its delivery rows go with
 * it. The feed that remains is gapless, so `position > $last` still reads every event kept, and
 * a consumer further behind sees its next position missing (docs/retention.md). Without a relay
 * the cursors never move, so none goes.
 */
export const feedEventsPruneStep: PruneStep = {
  name: 'feed_events',
  action: 'deleted',
  cutoff: (c) => c.feed,
  start: ['0'],
  // Through prune_sent_feed_events() (migrations/2026-11-29T01-…, which replaced the one of
  // 2026-11-28T02-…): the runtime role has no DELETE on feed_events nor feed_endpoint_events,
  // and the function deletes only events every endpoint has, older than both this cutoff and a
  // day, as a prefix of the feed from `after` (issue 24, item 9; issue 26).
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
    const before = sql`least(${required(ctx.cutoffs.feed)}::timestamptz, now() - interval '1 day')`;
    // The first event that stays, and why (the same conditions as the function's).
    const stop = await one(
      db,
      sql<{ position: string; state: string } | undefined>`
        SELECT e.position::text AS position, coalesce(
          (SELECT 'not yet fanned out to ' || ep.name FROM feed_endpoints ep
           WHERE ep.fanned_through < e.position ORDER BY ep.fanned_through, ep.name LIMIT 1),
          (SELECT CASE WHEN r.state = 'sent' THEN 'sent within the retention' ELSE r.state END
             || ' at ' || ep.name
           FROM feed_endpoint_events r JOIN feed_endpoints ep ON ep.id = r.endpoint_id
           WHERE r.event_id = e.id AND NOT coalesce(r.state = 'sent' AND r.sent_at < ${before}, false)
           ORDER BY r.state = 'sent', ep.name LIMIT 1),
          'created within the retention') AS state
        FROM feed_events e
        WHERE e.position IS NOT NULL AND NOT (
          e.created_at < ${before}
          AND e.position <= coalesce((SELECT min(fanned_through) FROM feed_endpoints), 0)
          AND NOT EXISTS (SELECT 1 FROM feed_endpoint_events r WHERE r.event_id = e.id
            AND NOT coalesce(r.state = 'sent' AND r.sent_at < ${before}, false)))
        ORDER BY e.position LIMIT 1`,
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
 * The attempt log: every attempt older than RETENTION_FEED_ATTEMPTS_DAYS, oldest first through
 * its time index. Nothing else refers to an attempt, and `feed show` of an event past it shows
 * its delivery state without the attempts.
 */
export const feedAttemptsPruneStep: PruneStep = olderRowsStep({
  table: 'feed_attempts',
  time: 'started_at',
  cutoff: (c) => c.feedAttempts,
  appendOnly: true,
});
