import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code, so it means the same thing forever.
//
// A quarantined delivery is money that may wait for a person: it is kept (never deleted to mark
// it done), and an operator marks it handled, by re-driving it through the current pipeline or
// by saying what was done instead. Open rows (not yet handled) are what an alert counts, so
// they have an index of their own that stays as small as the backlog.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('quarantined_deliveries')
    .addColumn('handled_at', 'timestamptz')
    // 'redriven': stored by the pipeline after all; 'marked': an operator dealt with it.
    .addColumn('handling', 'text', (c) => c.check(sql`handling IN ('redriven', 'marked')`))
    .addColumn('handled_note', 'text')
    .execute();
  await sql`
    ALTER TABLE quarantined_deliveries ADD CONSTRAINT quarantined_deliveries_handled
    CHECK ((handled_at IS NULL) = (handling IS NULL))
  `.execute(db);
  await sql`
    CREATE INDEX quarantined_deliveries_open ON quarantined_deliveries (received_at, id)
    WHERE handled_at IS NULL
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX quarantined_deliveries_open`.execute(db);
  await db.schema
    .alterTable('quarantined_deliveries')
    .dropConstraint('quarantined_deliveries_handled')
    .execute();
  await db.schema
    .alterTable('quarantined_deliveries')
    .dropColumn('handled_note')
    .dropColumn('handling')
    .dropColumn('handled_at')
    .execute();
}
