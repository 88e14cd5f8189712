import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code, so it means the same thing forever.
//
// A quarantined payment is money waiting for a person: a ledger fed by the feed must learn of
// it, and learn when it was dealt with. Quarantine events point at their quarantined_deliveries
// row (`quarantine_id`); a delivery refused for its Webhookid has none, so `webhook_id` may now
// be null. The `feed` view (for SQL consumers) keeps its columns: its join to the delivery
// becomes a left join, and a quarantine event's fields are the row without its body and headers
// (the opened event without how it was handled, so every rendering of it is the same).

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE feed_events ALTER COLUMN webhook_id DROP NOT NULL`.execute(db);
  await sql`ALTER TABLE feed_events ADD COLUMN quarantine_id bigint`.execute(db);
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
        d.payload
      FROM feed_events e
      LEFT JOIN webhook_deliveries d ON d.webhook_id = e.webhook_id AND e.quarantine_id IS NULL
      LEFT JOIN quarantined_deliveries q ON q.id = e.quarantine_id
      WHERE e.position IS NOT NULL
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM feed_events WHERE quarantine_id IS NOT NULL`.execute(db);
  await sql`
    CREATE OR REPLACE VIEW feed AS
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
          WHEN 'direct_credit.received' THEN
            (SELECT to_jsonb(c) FROM direct_credits c WHERE c.transaction_id = e.business_key)
          WHEN 'conflict.detected' THEN
            (SELECT to_jsonb(c) - 'resolved_at' - 'resolution' FROM conflicts c WHERE c.id = e.conflict_id)
        END AS fields,
        d.payload
      FROM feed_events e
      JOIN webhook_deliveries d ON d.webhook_id = e.webhook_id
      WHERE e.position IS NOT NULL
  `.execute(db);
  await sql`ALTER TABLE feed_events DROP COLUMN quarantine_id`.execute(db);
  await sql`ALTER TABLE feed_events ALTER COLUMN webhook_id SET NOT NULL`.execute(db);
}
