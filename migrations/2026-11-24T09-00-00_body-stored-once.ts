import { sql, type Kysely } from 'kysely';

// Frozen in time once landed: this file never imports application code, so it means the same
// thing forever.
//
// The body of a delivery is stored once, as the exact bytes the signature covers (`raw_body`).
// Until now the receiver also wrote it as jsonb (`payload`): about 620 bytes per delivery again,
// and as much again in WAL. From this release the receiver writes `payload` as null.
//
// - `delivery_body_json(raw_body)` reads a stored body as jsonb for SQL (a UTF-8 byte-order
//   mark skipped), or null where jsonb cannot hold it (bytes that are not valid in the
//   database's encoding, a NUL, a lone surrogate, a number beyond numeric's range). It never raises, so one odd row cannot fail a
//   query over many.
// - The `feed` view's `payload` column reads `payload` where an earlier release wrote it, the
//   bytes otherwise: same columns, same meaning.
// - `payload` itself stays (nullable, as it always was), so an instance of the previous release
//   can still insert during a rolling upgrade; rows written before this migration keep theirs
//   until retention clears the raw request (RETENTION_RAW_DAYS). A later migration drops it once
//   no previous release can be running.

export async function up(db: Kysely<unknown>): Promise<void> {
  // The database's own encoding, not 'UTF8': a cluster initialised without one (SQL_ASCII, as
  // the embedded Postgres of a laptop may be) cannot convert from UTF8 at all. The byte-order
  // mark is compared as bytes for the same reason.
  await sql`
    CREATE FUNCTION delivery_body_json(raw bytea) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
    BEGIN
      IF substring(raw FROM 1 FOR 3) = '\\xefbbbf'::bytea THEN
        raw := substring(raw FROM 4);
      END IF;
      RETURN convert_from(raw, pg_catalog.getdatabaseencoding())::jsonb;
    EXCEPTION WHEN others THEN
      RETURN NULL;
    END
    $$
  `.execute(db);
  await sql`
    COMMENT ON FUNCTION delivery_body_json(bytea) IS
      'A stored delivery body (webhook_deliveries.raw_body) as jsonb, or null where jsonb cannot hold it'
  `.execute(db);
  await sql`
    COMMENT ON COLUMN webhook_deliveries.payload IS
      'Written by releases before 2026-11-24T09 only (null since): read delivery_body_json(raw_body)'
  `.execute(db);
  await createFeedView(db, sql`coalesce(d.payload, delivery_body_json(d.raw_body))`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await createFeedView(db, sql`d.payload`);
  await sql`COMMENT ON COLUMN webhook_deliveries.payload IS NULL`.execute(db);
  await sql`DROP FUNCTION delivery_body_json(bytea)`.execute(db);
}

/** The view of 2026-11-24T08-00-00, with `payload` read by `payloadColumn`. */
async function createFeedView(db: Kysely<unknown>, payloadColumn: ReturnType<typeof sql>) {
  await sql`
    CREATE OR REPLACE VIEW feed AS
      SELECT e.position, e.id, e.type, e.event_name, e.business_key, e.webhook_id,
        e.created_at, coalesce(d.received_at, q.received_at) AS received_at,
        CASE e.type
          WHEN 'payment.received' THEN
            (SELECT to_jsonb(p) FROM npp_payments p WHERE p.transaction_id = e.business_key)
          WHEN 'payto_payment.received' THEN
            (SELECT to_jsonb(p) FROM payto_payments p WHERE p.transaction_id = e.business_key)
          WHEN 'credit_rejection.received' THEN
            (SELECT to_jsonb(r) FROM credit_rejections r
             WHERE r.event_name = e.event_name AND r.rejection_id = e.business_key)
          WHEN 'direct_credit.received' THEN
            (SELECT to_jsonb(c) FROM direct_credits c WHERE c.transaction_id = e.business_key)
          WHEN 'conflict.detected' THEN
            (SELECT to_jsonb(c) - 'resolved_at' - 'resolution' FROM conflicts c WHERE c.id = e.conflict_id)
          WHEN 'quarantine.opened' THEN
            to_jsonb(q) - 'raw_body' - 'headers' - 'pruned_at' - 'handled_at' - 'handling' - 'handled_note'
          WHEN 'quarantine.resolved' THEN
            to_jsonb(q) - 'raw_body' - 'headers' - 'pruned_at'
        END AS fields,
        ${payloadColumn} AS payload
      FROM feed_events e
      LEFT JOIN webhook_deliveries d ON d.webhook_id = e.webhook_id AND e.quarantine_id IS NULL
      LEFT JOIN quarantined_deliveries q ON q.id = e.quarantine_id
      WHERE e.position IS NOT NULL
  `.execute(db);
}
