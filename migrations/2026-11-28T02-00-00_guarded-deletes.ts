import { sql, type Kysely } from 'kysely';

// Frozen in time once landed: this file never imports application code, so it means the same
// thing forever.
//
// Issue 24, item 9: the runtime role could delete any refund and any feed event. It keeps no
// DELETE on either table (deploy/sql/roles.sql); the two deletes the code makes go through
// these functions, which run with their owner's rights (SECURITY DEFINER) and check, in the
// statement that deletes, the same conditions the code did:
//
//   drop_unsent_refund(caller_reference): a reservation whose request never left the process
//     (`pending`, never attempted). Answers whether a row went.
//   prune_sent_feed_events(after, cutoff, limit): the retention's batch of sent feed events, as
//     a prefix of the feed from `after` (the first event that must stay stops the batch). An
//     event goes only if it was sent before both `cutoff` and one day ago (the shortest
//     retention RETENTION_FEED_DAYS allows), so no caller deletes one not yet handed on, or one
//     sent within the last day. Answers how many went and the highest position that went.
//
// EXECUTE is taken from PUBLIC here; deploy/sql/roles.sql grants it to the receiver role.
// `search_path` is fixed, so a caller cannot put its own objects in front of the tables.
// prune_sent_feed_events is SQL with positional parameters, so a test can EXPLAIN its body.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION drop_unsent_refund(caller_reference text) RETURNS boolean
    LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp
    AS $$
      WITH gone AS (
        DELETE FROM refunds r
        WHERE r.caller_reference = $1 AND r.state = 'pending' AND r.attempts = 0
        RETURNING 1
      )
      SELECT count(*) > 0 FROM gone
    $$
  `.execute(db);
  await sql`
    CREATE FUNCTION prune_sent_feed_events(after bigint, cutoff timestamptz, batch_limit int)
    RETURNS TABLE (n int, last text)
    LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp
    AS $$
      WITH head AS (
        SELECT id, position,
          coalesce(relay_state = 'sent'
            AND sent_at < least($2, now() - interval '1 day'), false) AS old
        FROM feed_events
        WHERE position > $1
        ORDER BY position
        LIMIT $3
      ),
      stop AS (SELECT min(position) AS position FROM head WHERE NOT old),
      gone AS (
        DELETE FROM feed_events e USING head
        WHERE e.id = head.id AND head.old AND e.relay_state = 'sent'
          AND e.sent_at < least($2, now() - interval '1 day')
          AND head.position < coalesce((SELECT position FROM stop), 9223372036854775807)
        RETURNING e.position
      )
      SELECT count(*)::int, max(position)::text FROM gone
    $$
  `.execute(db);
  await sql`REVOKE ALL ON FUNCTION drop_unsent_refund(text) FROM PUBLIC`.execute(db);
  await sql`
    REVOKE ALL ON FUNCTION prune_sent_feed_events(bigint, timestamptz, int) FROM PUBLIC
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP FUNCTION prune_sent_feed_events(bigint, timestamptz, int)`.execute(db);
  await sql`DROP FUNCTION drop_unsent_refund(text)`.execute(db);
}
