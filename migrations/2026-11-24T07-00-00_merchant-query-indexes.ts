import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code, so it means the same thing forever.
//
// An index for every question the README offers a merchant, so that each answer costs the
// rows it returns, not the years of payments kept (test/integration/merchant-queries.test.ts
// plans each README query on a large seeded database):
// - payments received on a day: the payment's Sydney wall-clock time, per payment table;
// - a payer's payments: the paying account, and the payer's name case-insensitively;
// - recent rejections and direct-credit batches: their arrival time;
// - deliveries stored with warnings: a partial index holding only those.
// Open conflicts and open quarantine rows have partial indexes already.

const PAYMENT_TABLES = ['npp_payments', 'payto_payments', 'direct_credits'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of PAYMENT_TABLES) {
    const name = (suffix: string) => sql.raw(`${table}_${suffix}`);
    const t = sql.raw(table);
    await sql`CREATE INDEX ${name('date_time_local')} ON ${t} (date_time_local)`.execute(db);
    await sql`CREATE INDEX ${name('payer_account')} ON ${t} (source_bsb, source_account_number)`.execute(
      db,
    );
    await sql`CREATE INDEX ${name('payer_name')} ON ${t} (lower(remitter_name))`.execute(db);
  }
  await sql`CREATE INDEX credit_rejections_received_at ON credit_rejections (received_at)`.execute(
    db,
  );
  await sql`CREATE INDEX direct_credit_batches_received_at ON direct_credit_batches (received_at)`.execute(
    db,
  );
  await sql`
    CREATE INDEX webhook_deliveries_with_warnings ON webhook_deliveries (received_at)
    WHERE warnings <> '[]'::jsonb
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX webhook_deliveries_with_warnings`.execute(db);
  await sql`DROP INDEX direct_credit_batches_received_at`.execute(db);
  await sql`DROP INDEX credit_rejections_received_at`.execute(db);
  for (const table of PAYMENT_TABLES) {
    for (const suffix of ['payer_name', 'payer_account', 'date_time_local']) {
      await sql`DROP INDEX ${sql.raw(`${table}_${suffix}`)}`.execute(db);
    }
  }
}
