import { feedQuery, type FeedQueryable } from './feed-query.ts';

/** What the operator's commands do to the relay's state (`npm run feed -- …`). */

export interface DeadLetter {
  id: string;
  position: string;
  type: string;
  event_name: string;
  business_key: string;
  attempts: number;
  last_error: string | null;
  dead_at: string;
}

export async function listDeadLetters(db: FeedQueryable, limit: number): Promise<DeadLetter[]> {
  const result = await feedQuery<DeadLetter>(
    db,
    `SELECT id, position, type, event_name, business_key, attempts, last_error, dead_at
     FROM feed_events WHERE relay_state = 'dead' ORDER BY position LIMIT $1`,
    [limit],
  );
  return result.rows;
}

const REDRIVE = `UPDATE feed_events SET relay_state = 'pending', attempts = 0,
    first_attempt_at = NULL, next_attempt_at = NULL, dead_at = NULL, claimed_by = NULL,
    claimed_until = NULL`;

/** A dead letter becomes pending again, with a fresh age; false when `id` is not one. */
export async function redriveOne(db: FeedQueryable, id: string): Promise<boolean> {
  const result = await feedQuery(db, `${REDRIVE} WHERE id = $1 AND relay_state = 'dead'`, [id]);
  return result.rowCount === 1;
}

/** Every dead letter, in batches (each its own commit), reporting progress after each. */
export async function redriveAll(
  db: FeedQueryable,
  onProgress: (done: number) => void,
  batchSize = 1000,
): Promise<number> {
  let done = 0;
  for (;;) {
    const result = await feedQuery(
      db,
      `${REDRIVE} WHERE id IN (
         SELECT id FROM feed_events WHERE relay_state = 'dead' ORDER BY position LIMIT $1)`,
      [batchSize],
    );
    done += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) === 0) return done;
    onProgress(done);
  }
}

/** Every instance's relay reads this in its claim statement: pausing stops them all. */
export async function setPaused(
  db: FeedQueryable,
  paused: boolean,
  reason: string | null,
): Promise<void> {
  await feedQuery(
    db,
    `UPDATE feed_relay_control SET paused = $1, reason = $2, changed_at = now()`,
    [paused, reason],
  );
}

/**
 * Turning the push relay on over a database with history: the consumer already has (or does not
 * want) everything up to `position`, so those pending events are marked sent without a POST
 * (`last_error` says so), in batches each its own commit. Events after it are relayed as usual;
 * dead letters are left for `redrive`. Answers how many were marked.
 */
export async function startRelayAfter(
  db: FeedQueryable,
  position: string,
  onProgress: (done: number) => void,
  batchSize = 1000,
): Promise<number> {
  let done = 0;
  for (;;) {
    const result = await feedQuery(
      db,
      `UPDATE feed_events SET relay_state = 'sent', sent_at = now(), claimed_by = NULL,
         claimed_until = NULL, next_attempt_at = NULL,
         last_error = 'not relayed: the relay was started after position ' || $2::text
       WHERE id IN (
         SELECT id FROM feed_events
         WHERE relay_state = 'pending' AND position IS NOT NULL AND position <= $2::bigint
         ORDER BY position LIMIT $1 FOR UPDATE SKIP LOCKED)`,
      [batchSize, position],
    );
    done += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) === 0) return done;
    onProgress(done);
  }
}

/** The last position numbered so far (0 when none): what `start-after now` means. */
export async function lastPosition(db: FeedQueryable): Promise<string> {
  const result = await feedQuery<{ last: string | null }>(
    db,
    `SELECT position AS last FROM feed_events WHERE position IS NOT NULL
     ORDER BY position DESC LIMIT 1`,
  );
  return result.rows[0]?.last ?? '0';
}
