import { sql, type Kysely } from 'kysely';

// Frozen in time once landed: this file never imports application code, so it means the same
// thing forever.
//
// What the platform's delivery report said about a notification when recovery asked for its
// resend: its retry count and its last retry time (as shown, Sydney wall clock). The next run
// compares them with the report of the moment: a delivery attempt made since the resend that
// still left the notification missing means the resend failed (a database blip on our side,
// say), and recovery asks again at once instead of waiting out the spacing between resends.
//
// Nullable, no default: rows written before this migration (and resends of a report row that
// carries neither field) hold nulls, which recovery reads as "nothing known", the old rule.
// Adding nullable columns without a default rewrites nothing; the table is locked only briefly.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE recovery_attempts
      ADD COLUMN report_retry_count integer,
      ADD COLUMN report_last_retry text
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE recovery_attempts
      DROP COLUMN report_retry_count,
      DROP COLUMN report_last_retry
  `.execute(db);
}
