import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code, so it means the same thing forever.
//
// `recovery_leases` was named for its first user. Recovery, retention and anything else that
// must run on one instance at a time take a lease there, so the table is `leases` now, owned by
// the database library (src/lib/database/lease.ts). Rows move with the rename: a lease held
// while this migration runs stays held.
//
// An instance still running the code from before this migration (a rolling upgrade: the
// migration job runs, then the instances are replaced one at a time) takes and renews its
// leases through `recovery_leases`. A simple view over `leases` keeps that name working: it is
// auto-updatable, INSERT ... ON CONFLICT included, so old and new code share one table and one
// lease. A later migration drops the view once no older instance can be running.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE recovery_leases RENAME TO leases`.execute(db);
  await sql`ALTER INDEX recovery_leases_pkey RENAME TO leases_pkey`.execute(db);
  await sql`CREATE VIEW recovery_leases AS SELECT name, holder, acquired_at, expires_at FROM leases`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP VIEW recovery_leases`.execute(db);
  await sql`ALTER INDEX leases_pkey RENAME TO recovery_leases_pkey`.execute(db);
  await sql`ALTER TABLE leases RENAME TO recovery_leases`.execute(db);
}
