import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code, so it means the same thing forever.
//
// The feed (docs/feed.md): an outbox row per business event, written by the statement that
// stores its delivery; a position assigned after commit, in commit order; the push relay's
// state on the same row; and one row of relay control (pause) that every instance reads.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE feed_events (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      -- Null until the assigner numbers it, after its commit (gapless, in commit order).
      position bigint,
      type text NOT NULL,
      event_name text NOT NULL,
      business_key text NOT NULL,
      webhook_id bigint NOT NULL,
      -- conflict.detected only: the conflicts row it reports.
      conflict_id bigint,
      created_at timestamptz NOT NULL DEFAULT now(),
      relay_state text NOT NULL DEFAULT 'pending',
      attempts int NOT NULL DEFAULT 0,
      first_attempt_at timestamptz,
      next_attempt_at timestamptz,
      claimed_by text,
      claimed_until timestamptz,
      last_error text,
      sent_at timestamptz,
      dead_at timestamptz,
      CONSTRAINT feed_events_relay_state CHECK (relay_state IN ('pending', 'sent', 'dead'))
    )
  `.execute(db);
  // Readers page by position; the assigner finds the unnumbered rows; the relay finds the
  // unsent ones, and the earlier unsent event of a key (order per business key).
  await sql`CREATE UNIQUE INDEX feed_events_position ON feed_events (position) WHERE position IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE INDEX feed_events_unassigned ON feed_events (id) WHERE position IS NULL`.execute(
    db,
  );
  // Both relay indexes leave out unnumbered rows, so the delivery's statement (which inserts
  // them unnumbered) maintains only the primary key and feed_events_unassigned.
  await sql`
    CREATE INDEX feed_events_unsent ON feed_events (event_name, business_key, position)
    WHERE relay_state <> 'sent' AND position IS NOT NULL
  `.execute(db);
  await sql`
    CREATE INDEX feed_events_relay_due ON feed_events (position)
    WHERE relay_state = 'pending' AND position IS NOT NULL
  `.execute(db);

  await sql`
    CREATE TABLE feed_relay_control (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      paused boolean NOT NULL DEFAULT false,
      changed_at timestamptz NOT NULL DEFAULT now(),
      reason text
    )
  `.execute(db);
  await sql`INSERT INTO feed_relay_control DEFAULT VALUES`.execute(db);

  await createFeedView(db);
}

/** For SQL consumers: `SELECT * FROM feed WHERE position > $1 ORDER BY position`. */
async function createFeedView(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE VIEW feed AS
      SELECT e.position, e.id, e.type, e.event_name, e.business_key, e.webhook_id,
        e.created_at, d.received_at,
        CASE e.type
          WHEN 'payment.received' THEN
            (SELECT to_jsonb(p) FROM npp_payments p WHERE p.transaction_id = e.business_key)
          WHEN 'payto_payment.received' THEN
            (SELECT to_jsonb(p) FROM payto_payments p WHERE p.transaction_id = e.business_key)
          WHEN 'credit_rejection.received' THEN
            (SELECT to_jsonb(r) FROM credit_rejections r
             WHERE r.event_name = e.event_name AND r.rejection_id = e.business_key)
          WHEN 'conflict.detected' THEN
            (SELECT to_jsonb(c) - 'resolved_at' - 'resolution' FROM conflicts c WHERE c.id = e.conflict_id)
        END AS fields,
        d.payload
      FROM feed_events e
      JOIN webhook_deliveries d ON d.webhook_id = e.webhook_id
      WHERE e.position IS NOT NULL
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP VIEW feed`.execute(db);
  await sql`DROP TABLE feed_relay_control`.execute(db);
  await sql`DROP TABLE feed_events`.execute(db);
}
