import { sql, type Kysely } from 'kysely';

// Frozen in time once landed: this file never imports application code, so it means the same
// thing forever.
//
// The rule is unchanged: the same bytes are stored once per event (`event_name`, `body_sha256`).
// What enforces it changes, because of what it cost while data is kept. A B-tree over a random
// key (a SHA-256 in hex) is changed on a random page by every delivery, and the first change to
// a page after a checkpoint writes the whole page to the WAL: on a database of 2,000,000
// deliveries that index alone wrote 0.79 full pages (about 6 KB) of WAL per delivery, more than
// the delivery itself, and its 37,646 pages are most of what the checkpoints rewrite
// (docs/operations.md, "Bytes and WAL per delivery").
//
// An exclusion constraint over a hash index holds the same rule (two rows may not have equal
// keys) with 4 bytes per row in the index instead of about 90: 8,194 pages at 2,000,000. The
// store statement's `ON CONFLICT DO NOTHING` (no conflict target) treats it as it treated the
// unique constraint: a second copy is not inserted and not returned. The constraint keeps its
// name, so errors and documentation name the same thing.
//
// Readers look a body up by the same expression, `event_name || ':' || body_sha256`, so the
// hash index answers them (src/storage/deliveries-repository.ts).
//
// Cost of the migration: the table is locked while the hash index is built (16 s for 2,000,000
// deliveries on 2 cores). docs/operations.md says how to run it on a large database.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE webhook_deliveries
      DROP CONSTRAINT webhook_deliveries_event_body_once,
      ADD CONSTRAINT webhook_deliveries_event_body_once
        EXCLUDE USING hash ((event_name || ':' || body_sha256) WITH =)
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE webhook_deliveries
      DROP CONSTRAINT webhook_deliveries_event_body_once,
      ADD CONSTRAINT webhook_deliveries_event_body_once UNIQUE (event_name, body_sha256)
  `.execute(db);
}
