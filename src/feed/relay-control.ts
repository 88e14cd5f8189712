import { sql } from 'kysely';
import type { Db } from '../lib/database/database.ts';

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

export async function listDeadLetters(db: Db, limit: number): Promise<DeadLetter[]> {
  return db
    .selectFrom('feed_events')
    .select([
      'id',
      'position',
      'type',
      'event_name',
      'business_key',
      'attempts',
      'last_error',
      sql<string>`dead_at::text`.as('dead_at'),
    ])
    .where('relay_state', '=', 'dead')
    .orderBy('position')
    .limit(limit)
    .$narrowType<{ position: string }>()
    .execute();
}

/** A dead letter as it becomes pending again, with a fresh age. */
const REDRIVEN = {
  relay_state: 'pending',
  attempts: 0,
  first_attempt_at: null,
  next_attempt_at: null,
  dead_at: null,
  claimed_by: null,
  claimed_until: null,
} as const;

/** A dead letter becomes pending again, with a fresh age; false when `id` is not one. */
export async function redriveOne(db: Db, id: string): Promise<boolean> {
  const result = await db
    .updateTable('feed_events')
    .set(REDRIVEN)
    .where('id', '=', id)
    .where('relay_state', '=', 'dead')
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Every dead letter, in batches (each its own commit), reporting progress after each. */
export async function redriveAll(
  db: Db,
  onProgress: (done: number) => void,
  batchSize = 1000,
): Promise<number> {
  return inBatches(onProgress, async () => {
    const result = await db
      .updateTable('feed_events')
      .set(REDRIVEN)
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('feed_events')
          .select('id')
          .where('relay_state', '=', 'dead')
          .orderBy('position')
          .limit(batchSize),
      )
      .executeTakeFirst();
    return result.numUpdatedRows;
  });
}

/** Runs `batch` (each its own commit) until it changes nothing; answers how many it changed. */
async function inBatches(
  onProgress: (done: number) => void,
  batch: () => Promise<bigint>,
): Promise<number> {
  let done = 0;
  for (;;) {
    const changed = Number(await batch());
    done += changed;
    if (changed === 0) return done;
    onProgress(done);
  }
}

/** Every instance's relay reads this in its claim statement: pausing stops them all. */
export async function setPaused(db: Db, paused: boolean, reason: string | null): Promise<void> {
  await db
    .updateTable('feed_relay_control')
    .set({ paused, reason, changed_at: sql<Date>`now()` })
    .execute();
}

/** The last position numbered so far (0 when none): what `start-after now` means. */
export async function lastPosition(db: Db): Promise<string> {
  const row = await db
    .selectFrom('feed_events')
    .select('position')
    .where('position', 'is not', null)
    .orderBy('position', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.position ?? '0';
}
