import { sql, type Kysely } from 'kysely';

// Frozen in time once landed: this file never imports application code, so it means the same
// thing forever.
//
// Retention (docs/retention.md): the raw request of an old delivery (raw_body, headers and the
// jsonb payload, which hold payer names and account numbers) may be pruned, and sent feed events
// and old recovery records deleted, by a prune that works in small batches.
//
// - `webhook_deliveries.raw_body` and `headers` become nullable: null only once the delivery is
//   pruned (`pruned_at`), which a check constraint enforces for every row written from now on
//   (NOT VALID: the rows already stored were all written under NOT NULL). `payload` was already
//   nullable. Everything deduplication and the typed rows need stays: webhook_id, body_sha256,
//   event_name, received_at, warnings.
// - `quarantined_deliveries.pruned_at`: a handled row whose raw body and headers were cleared
//   (they stay NOT NULL: an empty body and `{}`, so every reader of a quarantine row still works).
// - Indexes the prune's batches read, none of them written by the delivery statement except
//   `webhook_deliveries_unpruned` (the prune's only way to the oldest unpruned deliveries
//   without scanning what it pruned before; it holds only rows not yet pruned):
//   the relay's backlog by delivery (feed_events rows enter it when the assigner numbers them,
//   off the delivery path, and leave it when sent), handled quarantine rows not yet pruned, and
//   the recovery tables by age.
//
// Rows stored before this migration are not changed by it.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE webhook_deliveries
      ALTER COLUMN raw_body DROP NOT NULL,
      ALTER COLUMN headers DROP NOT NULL,
      ADD COLUMN pruned_at timestamptz
  `.execute(db);
  await sql`
    ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_raw_until_pruned
    CHECK (pruned_at IS NOT NULL OR (raw_body IS NOT NULL AND headers IS NOT NULL)) NOT VALID
  `.execute(db);
  await sql`
    CREATE INDEX webhook_deliveries_unpruned ON webhook_deliveries (received_at, webhook_id)
    WHERE pruned_at IS NULL
  `.execute(db);

  await sql`ALTER TABLE quarantined_deliveries ADD COLUMN pruned_at timestamptz`.execute(db);
  await sql`
    CREATE INDEX quarantined_deliveries_prunable ON quarantined_deliveries (handled_at, id)
    WHERE handled_at IS NOT NULL AND pruned_at IS NULL
  `.execute(db);

  await sql`
    CREATE INDEX feed_events_unsent_delivery ON feed_events (webhook_id)
    WHERE relay_state <> 'sent' AND position IS NOT NULL
  `.execute(db);

  await sql`CREATE INDEX recovery_attempts_attempted ON recovery_attempts (attempted_at, id)`.execute(
    db,
  );
  await sql`CREATE INDEX recovery_row_problems_last_seen ON recovery_row_problems (last_seen_at)`.execute(
    db,
  );
  // Deleting a run sets the problems' first_run_id to null: found by index, not by a scan.
  await sql`CREATE INDEX recovery_row_problems_first_run ON recovery_row_problems (first_run_id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX recovery_row_problems_first_run`.execute(db);
  await sql`DROP INDEX recovery_row_problems_last_seen`.execute(db);
  await sql`DROP INDEX recovery_attempts_attempted`.execute(db);
  await sql`DROP INDEX feed_events_unsent_delivery`.execute(db);
  await sql`DROP INDEX quarantined_deliveries_prunable`.execute(db);
  await sql`ALTER TABLE quarantined_deliveries DROP COLUMN pruned_at`.execute(db);
  await sql`DROP INDEX webhook_deliveries_unpruned`.execute(db);
  await sql`
    ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_raw_until_pruned
  `.execute(db);
  // Fails, as it should, once a delivery has been pruned: its raw request is gone.
  await sql`
    ALTER TABLE webhook_deliveries
      DROP COLUMN pruned_at,
      ALTER COLUMN raw_body SET NOT NULL,
      ALTER COLUMN headers SET NOT NULL
  `.execute(db);
}
