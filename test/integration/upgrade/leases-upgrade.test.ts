import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withLease } from '../../../src/lib/database/lease.ts';
import { createMigrator } from '../../../src/lib/database/migrator.ts';
import {
  createTestDatabase,
  migratedUpToBefore,
  type TestDatabase,
} from '../../support/test-database.ts';

/**
 * Migration 2026-11-29T00-00-00 renames `recovery_leases` to `leases` (the database library's,
 * no longer recovery's). A lease held while it runs stays held, and an instance still running
 * the code from before it (a rolling upgrade) takes, renews and releases leases through the old
 * name, on the same rows the new code uses: one lease, whichever release asks.
 */
const LEASES = '2026-11-29T00-00-00_leases';
let database: TestDatabase;

/** The previous release's statements, as it sent them (src/platform/recovery/lease.ts then). */
const previousRelease = {
  take: (name: string, holder: string) =>
    sql<{ holder: string }>`
      INSERT INTO recovery_leases (name, holder, acquired_at, expires_at)
      VALUES (${name}, ${holder}, clock_timestamp(), clock_timestamp() + interval '1 minute')
      ON CONFLICT (name) DO UPDATE
        SET holder = excluded.holder, acquired_at = excluded.acquired_at,
            expires_at = excluded.expires_at
        WHERE recovery_leases.expires_at < clock_timestamp()
      RETURNING holder`.execute(database.db),
  release: (name: string, holder: string) =>
    sql`DELETE FROM recovery_leases WHERE name = ${name} AND holder = ${holder}`.execute(
      database.db,
    ),
};

beforeAll(async () => {
  database = await createTestDatabase(migratedUpToBefore(LEASES));
  // Held by an instance of the previous release when the migration job runs.
  await previousRelease.take('retention', 'old-instance');
  const { error } = await createMigrator(database.db).migrateTo(LEASES);
  if (error) throw error;
});
afterAll(() => database?.drop());

describe('upgrading to 2026-11-29T00-00-00 (the lease table is `leases`)', () => {
  it('when migrated with a lease held, then it is still held, and the new code skips its work', async () => {
    expect(await database.query('SELECT name, holder FROM leases')).toEqual([
      { name: 'retention', holder: 'old-instance' },
    ]);
    const outcome = await withLease(database.db, 'retention', () => Promise.resolve('ran'));
    expect(outcome).toMatchObject({ ran: false, holder: 'old-instance' });
  });

  it('when an old instance asks while the new code holds the lease, then it is refused, and gets it once released', async () => {
    await previousRelease.release('retention', 'old-instance');
    const inside = await withLease(database.db, 'recovery', async () => {
      const taken = await previousRelease.take('recovery', 'old-instance');
      return taken.rows;
    });
    expect(inside).toEqual({ ran: true, result: [] });
    const after = await previousRelease.take('recovery', 'old-instance');
    expect(after.rows).toEqual([{ holder: 'old-instance' }]);
    expect(await database.query('SELECT name, holder FROM leases')).toEqual([
      { name: 'recovery', holder: 'old-instance' },
    ]);
  });
});
