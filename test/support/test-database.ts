import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createDatabase, type Db } from '../../src/lib/database/database.ts';
import { createMigrator } from '../../src/lib/database/migrator.ts';
import { databaseUrl } from './database-url.ts';
import { copyTemplate, withAdmin } from './migrated-template.ts';

export interface TestDatabase {
  url: string;
  db: Db;
  /** Every row of a table, for asserting exactly what was (or was not) stored. */
  rows<T = Record<string, unknown>>(table: string, orderBy?: string): Promise<T[]>;
  count(table: string): Promise<number>;
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

/**
 * A fresh database per test file, migrated by the service's own migrator (to the latest
 * migration, or with `migrate` to wherever the test wants to start from).
 */
/**
 * For an upgrade test: a migrate function that stops just before `migration`, so the test can
 * write rows as the previous release did and then migrate to the latest.
 */
export function migratedUpToBefore(migration: string): (db: Db) => Promise<void> {
  return async (db) => {
    const names = (await createMigrator(db).getMigrations()).map((m) => m.name);
    const previous = names[names.indexOf(migration) - 1];
    if (!previous) throw new Error(`no migration before ${migration}`);
    const { error } = await createMigrator(db).migrateTo(previous);
    if (error) throw error;
  };
}

/**
 * Without `migrate`, a copy of the run's template (migrated once by the global setup, see
 * migrated-template.ts): the same schema the migrator would make, without running it per file.
 */
export async function createTestDatabase(
  migrate?: (db: Db) => Promise<void>,
): Promise<TestDatabase> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `receiver_test_${randomBytes(6).toString('hex')}`;
  if (migrate === undefined) await copyTemplate(adminUrl, inject('templateDatabase'), name);
  else await withAdmin(adminUrl, (admin) => admin.query(`CREATE DATABASE ${name}`));
  const url = databaseUrl(adminUrl, name);
  const db = createDatabase({ url, poolMax: 20 });
  await migrate?.(db);

  // Timestamps without zone come back as their text, exactly as stored.
  const client = new pg.Client({
    connectionString: url,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === 1114
          ? (value: string) => value
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  await client.connect();
  return {
    url,
    db,
    rows: async (table, orderBy) =>
      (await client.query(`SELECT * FROM ${table}${orderBy ? ` ORDER BY ${orderBy}` : ''}`)).rows,
    count: async (table) =>
      Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n),
    query: async (text, params) => (await client.query(text, params)).rows,
    drop: async () => {
      await client.end();
      await db.destroy();
      await withAdmin(adminUrl, (admin) =>
        admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      );
    },
  };
}

export { databaseUrl } from './database-url.ts';
