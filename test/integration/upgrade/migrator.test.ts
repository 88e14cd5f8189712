import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/lib/logger.ts';
import { createDatabase } from '../../../src/lib/database/database.ts';
import { migrateToLatest } from '../../../src/lib/database/migrator.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

const SLOW_MIGRATION_DIR = fileURLToPath(new URL('../../fixtures/slow-migration', import.meta.url));

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase(async () => {}); // empty: this test brings its own migration
});
afterAll(() => database?.drop());

describe('migrator', () => {
  it('when a migration runs longer than the statement timeout deliveries get, then it still completes', async () => {
    // The receiver's pool cuts statements off after DATABASE_STATEMENT_TIMEOUT_MS; a backfill on
    // a large table must not fail the upgrade (and with it the start-up) for that.
    const db = createDatabase({ url: database.url, poolMax: 2, statementTimeoutMs: 200 });
    try {
      await migrateToLatest(db, createLogger('silent'), SLOW_MIGRATION_DIR);
      const rows = await database.query<{ name: string }>('SELECT name FROM kysely_migration');
      expect(rows.map((row) => row.name)).toEqual(['2000-01-01T00-00-00_slow-backfill']);
      // Outside migrations the pool's statements keep their timeout.
      await expect(sql`SELECT pg_sleep(0.5)`.execute(db)).rejects.toThrow(/statement timeout/);
    } finally {
      await db.destroy();
    }
  });
});
