import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

// Frozen in time once landed: this file never imports application code, so it means the same
// thing forever.
//
// Issue 24, item 8: the read-only feed role could stop the feed for everyone. Advisory locks
// and NOTIFY need no privilege at all, so a merchant's SQL consumer could hold the assigner's
// advisory lock (no event numbered, push and pull stopped), take the refund locks, and wake
// every long poll with `NOTIFY feed_positions`.
//
// `named_locks`: one row per lock name. A lock is the row locked FOR UPDATE inside a
// transaction, and `SELECT … FOR UPDATE` needs UPDATE privilege on the table, which
// deploy/sql/roles.sql gives the receiver role alone. The assigner's row exists from here on;
// other names (a payment, a refund's caller reference) are inserted the first time they are
// locked and then kept (a row of a few bytes per refund).
//
// `feed_notification_key`: one random key, readable by the receiver role only. The assigner
// signs each notification's payload with it (`<position>.<HMAC-SHA256 hex>`), and the service
// ignores a payload it cannot verify: whoever cannot read this table cannot wake its long polls.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE named_locks (
      name text PRIMARY KEY,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db);
  await sql`INSERT INTO named_locks (name) VALUES ('feed-assigner')`.execute(db);

  await sql`
    CREATE TABLE feed_notification_key (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      key bytea NOT NULL CHECK (octet_length(key) >= 32),
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db);
  // Drawn here, by the migration job, never by the database's default (no extension needed).
  await sql`INSERT INTO feed_notification_key (key) VALUES (${randomBytes(32)})`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE feed_notification_key`.execute(db);
  await sql`DROP TABLE named_locks`.execute(db);
}
