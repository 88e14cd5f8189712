import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabaseWithPool, type Db } from '../../../src/lib/database/database.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

describe('an idle pooled connection that the database ends', () => {
  let testDb: TestDatabase;
  let db: Db | undefined;

  beforeAll(async () => {
    testDb = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.destroy();
    await testDb.drop();
  });

  it('when Postgres terminates it, then the handler gets the error without the pool client hung on it', async () => {
    const lost: Error[] = [];
    const opened = createDatabaseWithPool({
      url: testDb.url,
      poolMax: 1,
      onIdleClientError: (e) => lost.push(e),
    });
    db = opened.db;
    const { rows } = await opened.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const pid = rows[0]!.pid;
    await testDb.query('SELECT pg_terminate_backend($1)', [pid]);
    await expect.poll(() => lost.length, { timeout: 10_000 }).toBe(1);
    expect((lost[0] as Error & { code?: string }).code).toBe('57P01');
    expect(Object.keys(lost[0]!)).not.toContain('client');
    // The pool replaces it: the next query runs on a new connection.
    const after = await opened.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(after.rows[0]!.pid).not.toBe(pid);
  });
});
