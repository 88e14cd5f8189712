import { sql, type RawBuilder } from 'kysely';
import { countRows, one, required, type PruneStep } from '../lib/database/prune-step.ts';

/**
 * Sent feed events, as a prefix of the feed only: from the lowest position up to (not
 * including) the first event that must stay (pending, dead, or sent within the retention). The
 * feed that remains is gapless, so `position > $last` still reads every event kept, and a
 * consumer further behind sees its next position missing (docs/retention.md). Without a relay
 * every event is pending, so none goes.
 */
export const feedEventsPruneStep: PruneStep = {
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
