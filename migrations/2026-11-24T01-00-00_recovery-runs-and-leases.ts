import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code, so it means the same thing forever.
//
// Recovery that one odd report row, a large report or a dead database connection cannot stop:
//
// - `recovery_runs` rows are written when a run starts (finished_at still null) and completed
//   when it ends, so a run that fails part-way, or whose process dies, is still on record;
//   `holder` names the lease it ran under.
// - `recovery_leases`: who may run recovery now. A row with an expiry, taken only when free or
//   expired and renewed while the run goes on; unlike a session advisory lock it does not vanish
//   when the holder's connection dies, and every resend is recorded only while it is held.
// - `recovery_progress`: where in a Sydney day's report the next run goes on reading, so a
//   report longer than one run's page budget is read over several runs, never dropped.
// - `recovery_row_problems`: report rows recovery could not read (a webhookId that is not an
//   int64, a control character, no Transaction ID, ...), with the reason and the raw row, one
//   row per distinct problem (seen again: counted, not repeated), for an operator.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('recovery_runs')
    .alterColumn('finished_at', (c) => c.dropNotNull())
    .execute();
  await db.schema.alterTable('recovery_runs').addColumn('holder', 'text').execute();

  await db.schema
    .createTable('recovery_leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    // Unique per acquisition (host, pid, random): a holder never mistakes another's lease for its own.
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('acquired_at', 'timestamptz', (c) => c.notNull())
    // The database's clock decides; free to take once expires_at < clock_timestamp().
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('recovery_progress')
    .addColumn('report_day', 'date', (c) => c.notNull())
    .addColumn('report_kind', 'text', (c) =>
      c.notNull().check(sql`report_kind IN ('delivery', 'payto')`),
    )
    // Rows of the day's report already read in the current pass: the next run asks from here.
    .addColumn('next_skip', 'integer', (c) => c.notNull().check(sql`next_skip >= 0`))
    .addColumn('pass_started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('recovery_progress_pkey', ['report_day', 'report_kind'])
    .execute();

  await db.schema
    .createTable('recovery_row_problems')
    .addColumn('id', 'bigint', (c) => c.generatedAlwaysAsIdentity().primaryKey())
    .addColumn('report_day', 'date', (c) => c.notNull())
    .addColumn('report_kind', 'text', (c) =>
      c.notNull().check(sql`report_kind IN ('delivery', 'payto')`),
    )
    // 1-based, counting the day's data rows across pages.
    .addColumn('row_number', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    // The row as sent, cut to about 500 characters, NUL written as U+FFFD.
    .addColumn('raw', 'text', (c) => c.notNull())
    // SHA-256 of reason and raw: the same problem seen by later runs updates this row.
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('first_run_id', 'bigint', (c) =>
      c.references('recovery_runs.id').onDelete('set null'),
    )
    .addColumn('last_run_id', 'bigint', (c) =>
      c.references('recovery_runs.id').onDelete('set null'),
    )
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('times_seen', 'integer', (c) => c.notNull().defaultTo(1))
    .addUniqueConstraint('recovery_row_problems_row', [
      'report_kind',
      'report_day',
      'row_number',
      'fingerprint',
    ])
    .execute();
  await db.schema
    .createIndex('recovery_row_problems_last_run')
    .on('recovery_row_problems')
    .column('last_run_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('recovery_row_problems').execute();
  await db.schema.dropTable('recovery_progress').execute();
  await db.schema.dropTable('recovery_leases').execute();
  await db.schema.alterTable('recovery_runs').dropColumn('holder').execute();
  await sql`UPDATE recovery_runs SET finished_at = started_at WHERE finished_at IS NULL`.execute(
    db,
  );
  await db.schema
    .alterTable('recovery_runs')
    .alterColumn('finished_at', (c) => c.setNotNull())
    .execute();
}
