import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code, so it means the same thing forever.
//
// Every instance reads the money states nobody may be watching at each scrape (at most once per
// 5 s): refunds in doubt and PayTo receipts no webhook brought, with the age of the oldest of
// each (src/operations/attention/). Partial indexes hold only those rows, so each read costs
// what is waiting, never the years of refunds and receipts kept. Open quarantine rows and open
// conflicts have partial indexes already (2026-11-24T02-00-00, 2026-11-22T01-00-00).

export async function up(db: Kysely<unknown>): Promise<void> {
  // pending (left by a run that died, or being sent now) and unknown (any attempt may have
  // reached the platform): counted by state, the oldest request first.
  await sql`
    CREATE INDEX refunds_in_doubt ON refunds (state, requested_at)
    WHERE state IN ('pending', 'unknown')
  `.execute(db);
  // The existing open index is by report day; the age an operator is alerted on runs from when
  // recovery first saw the receipt.
  await sql`
    CREATE INDEX payto_unmatched_receipts_open_since ON payto_unmatched_receipts (first_seen_at)
    WHERE resolved_at IS NULL
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX payto_unmatched_receipts_open_since`.execute(db);
  await sql`DROP INDEX refunds_in_doubt`.execute(db);
}
