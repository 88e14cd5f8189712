import { sql, type Kysely } from 'kysely';

// Frozen in time once landed: never imports application code.
//
// The initial key, UNIQUE NULLS NOT DISTINCT (event_name, webhook_id_header, body_sha256), puts
// the Webhookid header in a btree entry as sent. A malformed header of a few thousand random
// characters exceeds the entry limit (about 2,700 bytes), so Postgres refuses the row (SQLSTATE
// 54000) and the refused delivery could not be kept at all. The key now holds a SHA-256 digest
// of the header instead (32 bytes whatever its length); the header itself stays whole in its
// column. Same property as before: the same refused delivery (event, header, body) is kept once,
// and a missing header (null) still counts as one value. Existing rows keep their place: distinct
// headers have distinct digests, so the new index builds over them as the old key did.

export async function up(db: Kysely<unknown>): Promise<void> {
  // sha256(convert_to(…)) is not IMMUTABLE, as an index needs, only because convert_to depends
  // on the database's encoding; that is fixed when the database is created, so this wrapper may
  // honestly say IMMUTABLE.
  await sql`
    CREATE FUNCTION quarantine_header_digest(header text) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN sha256(convert_to(header, 'UTF8'))
  `.execute(db);
  await sql`ALTER TABLE quarantined_deliveries DROP CONSTRAINT quarantined_deliveries_once`.execute(
    db,
  );
  await sql`
    CREATE UNIQUE INDEX quarantined_deliveries_once ON quarantined_deliveries
    (event_name, quarantine_header_digest(webhook_id_header), body_sha256) NULLS NOT DISTINCT
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Fails, as it should, if a header too long for the old key has been kept since.
  await sql`DROP INDEX quarantined_deliveries_once`.execute(db);
  await sql`DROP FUNCTION quarantine_header_digest(text)`.execute(db);
  await sql`
    ALTER TABLE quarantined_deliveries
    ADD CONSTRAINT quarantined_deliveries_once
    UNIQUE NULLS NOT DISTINCT (event_name, webhook_id_header, body_sha256)
  `.execute(db);
}
