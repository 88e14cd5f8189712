import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code, so it means the same thing forever.
//
// The feed's gauges are refreshed every few seconds by every instance; each must cost what the
// backlog costs, never what the table holds (years of payments). Dead letters had no index of
// their own, so counting them (and finding the events a dead letter blocks) read the whole
// table: this partial index holds dead letters only, ordered as the blocked-check needs.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX feed_events_dead ON feed_events (event_name, business_key, position)
    WHERE relay_state = 'dead'
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX feed_events_dead`.execute(db);
}
