import { sql } from 'kysely';
import type { Db } from '../lib/database/database.ts';
import type { FeedEventRow } from './render-events.ts';
import type { RelayState } from './tables.ts';

/** The relay's state on `feed_events` (docs/feed.md, "Push: the relay"). */

export interface ClaimedEvent extends FeedEventRow {
  /** This attempt's number (1 for the first): with `claimed_by`, the claim's token. */
  attempts: number;
}

/**
 * Claims up to `limit` due events for `instance` in one statement: pending, positioned, not
 * waiting for a retry, not claimed (or the claim's lease has run out: its instance died), the
 * relay not paused, and no earlier event of the same key unsent (order per business key).
 * `FOR UPDATE SKIP LOCKED` lets every instance claim at once without taking the same event.
 */
export async function claimEvents(
  db: Db,
  options: { instance: string; limit: number; leaseMs: number },
): Promise<ClaimedEvent[]> {
  const result = await sql<ClaimedEvent>`
    WITH due AS (
       SELECT o.id FROM feed_events o
       WHERE o.relay_state = 'pending' AND o.position IS NOT NULL
         AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= now())
         AND (o.claimed_until IS NULL OR o.claimed_until < now())
         AND NOT (SELECT paused FROM feed_relay_control)
         AND NOT EXISTS (
           SELECT 1 FROM feed_events earlier
           WHERE earlier.event_name = o.event_name AND earlier.business_key = o.business_key
             AND earlier.relay_state <> 'sent' AND earlier.position < o.position)
       ORDER BY o.position
       LIMIT ${options.limit}
       FOR UPDATE OF o SKIP LOCKED
     )
     UPDATE feed_events e SET claimed_by = ${options.instance},
       claimed_until = now() + ${options.leaseMs} * interval '1 millisecond',
       attempts = e.attempts + 1, first_attempt_at = coalesce(e.first_attempt_at, now())
     FROM due WHERE e.id = due.id
     RETURNING e.id, e.position, e.type, e.event_name, e.business_key, e.webhook_id,
       e.conflict_id, e.quarantine_id, e.created_at::text AS created_at, e.attempts
  `.execute(db);
  return result.rows.sort((a, b) => Number(BigInt(a.position) - BigInt(b.position)));
}

/** The consumer answered 2xx: done. Only the claimant of this attempt may finish it. */
export async function markSent(db: Db, event: ClaimedEvent, instance: string): Promise<boolean> {
  const result = await db
    .updateTable('feed_events')
    .set({
      relay_state: 'sent',
      sent_at: sql<Date>`now()`,
      claimed_by: null,
      claimed_until: null,
      last_error: null,
    })
    .where('id', '=', event.id)
    .where('claimed_by', '=', instance)
    .where('attempts', '=', event.attempts)
    .where('relay_state', '=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/**
 * The attempt failed: retry after `retryInMs` (never later than the end of the event's age),
 * or, once `maxAgeMs` has passed since its first attempt, dead-letter it. Returns the outcome,
 * or undefined when this instance no longer held the claim.
 */
export async function markFailed(
  db: Db,
  event: ClaimedEvent,
  options: { instance: string; error: string; retryInMs: number; maxAgeMs: number },
): Promise<'retry' | 'dead' | undefined> {
  const ageEnds = sql`first_attempt_at + ${options.maxAgeMs} * interval '1 millisecond'`;
  const result = await sql<{ relay_state: RelayState }>`
    UPDATE feed_events SET
      relay_state = CASE WHEN now() >= ${ageEnds} THEN 'dead' ELSE 'pending' END,
      dead_at = CASE WHEN now() >= ${ageEnds} THEN now() END,
      next_attempt_at = least(now() + ${options.retryInMs} * interval '1 millisecond', ${ageEnds}),
      claimed_by = NULL, claimed_until = NULL, last_error = ${options.error.slice(0, 500)}
    WHERE id = ${event.id} AND claimed_by = ${options.instance} AND attempts = ${event.attempts}
      AND relay_state = 'pending'
    RETURNING relay_state
  `.execute(db);
  const state = result.rows[0]?.relay_state;
  return state === undefined ? undefined : state === 'dead' ? 'dead' : 'retry';
}
