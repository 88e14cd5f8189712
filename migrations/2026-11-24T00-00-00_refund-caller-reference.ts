import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code, so it means the same thing forever.
//
// A refund is asked for under the caller's own reference (the merchant's return or order id):
// the same reference again answers the recorded result instead of refunding again, so a job
// runner that repeats its step cannot pay twice. Refunds recorded before this migration had
// only the platform nonce; it becomes their caller reference, so an operator can still resume
// one whose outcome is unknown by naming it.
//
// `dialect` is the description of the platform (interface document or public reference) the
// request was last sent in, so a resumed refund and the next refund start from the one the
// platform took.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('refunds').addColumn('caller_reference', 'text').execute();
  await db.schema
    .alterTable('refunds')
    .addColumn('dialect', 'text', (c) => c.check(sql`dialect IN ('interface', 'public')`))
    .execute();
  await sql`UPDATE refunds SET caller_reference = unique_reference`.execute(db);
  // The previous release, still running during a rolling upgrade, inserts refunds without a
  // caller reference: give those rows their nonce, as the backfill does, so its statement keeps
  // working against this schema (migrations never break the release before them).
  await sql`
    CREATE FUNCTION refunds_default_caller_reference() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      NEW.caller_reference := coalesce(NEW.caller_reference, NEW.unique_reference);
      RETURN NEW;
    END
    $$
  `.execute(db);
  await sql`
    CREATE TRIGGER refunds_default_caller_reference BEFORE INSERT ON refunds
    FOR EACH ROW EXECUTE FUNCTION refunds_default_caller_reference()
  `.execute(db);
  await db.schema
    .alterTable('refunds')
    .alterColumn('caller_reference', (c) => c.setNotNull())
    .execute();
  await db.schema
    .createIndex('refunds_caller_reference')
    .on('refunds')
    .column('caller_reference')
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER refunds_default_caller_reference ON refunds`.execute(db);
  await sql`DROP FUNCTION refunds_default_caller_reference()`.execute(db);
  await db.schema.dropIndex('refunds_caller_reference').execute();
  await db.schema.alterTable('refunds').dropColumn('dialect').execute();
  await db.schema.alterTable('refunds').dropColumn('caller_reference').execute();
}
