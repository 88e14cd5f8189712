import type { ColumnType, Generated } from 'kysely';

/**
 * The feed's tables as Kysely sees them, matching migrations/, added to src/lib's `Database`
 * by declaration merging (src/lib knows no module). The receiver writes `feed_events` rows in
 * its store statement (its outbox, src/receiver/storage/feed-outbox-sql.ts); everything else
 * about them is the feed's.
 */

/** Where an event stands with the relay (docs/feed.md, "Push: the relay"). */
export type RelayState = 'pending' | 'sent' | 'dead';

/** The feed's outbox (migrations 2026-11-22T03-00-00, 2026-11-24T08-00-00): one row per event. */
interface FeedEventsTable {
  id: Generated<string>;
  /** Null until the assigner numbers it, after its commit. */
  position: string | null;
  type: string;
  event_name: string;
  business_key: string;
  webhook_id: string | null;
  conflict_id: string | null;
  quarantine_id: string | null;
  created_at: Generated<Date>;
  relay_state: RelayState;
  attempts: number;
  first_attempt_at: Date | null;
  next_attempt_at: Date | null;
  claimed_by: string | null;
  claimed_until: Date | null;
  last_error: string | null;
  sent_at: Date | null;
  dead_at: Date | null;
}

/** One row: whether every instance's relay is paused. */
interface FeedRelayControlTable {
  /** Always true: the key that keeps the table to one row (never written). */
  id: ColumnType<boolean, never, never>;
  paused: boolean;
  changed_at: Date;
  reason: string | null;
}

declare module '../lib/database/database.ts' {
  interface Database {
    feed_events: FeedEventsTable;
    feed_relay_control: FeedRelayControlTable;
  }
}
