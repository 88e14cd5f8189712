import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDatabase } from '../../src/lib/database/database.ts';
import { migrateToLatest } from '../../src/lib/database/migrator.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { databaseUrl } from './database-url.ts';

/**
 * One database migrated to the latest migration, made once per run by the global setup. A test
 * file's database is a copy of it (`CREATE DATABASE … TEMPLATE`, a file copy inside Postgres),
 * instead of running every migration again for each of some hundred files. Nothing connects to
 * it once made: Postgres copies a template only while no session uses it.
 */
export async function createMigratedTemplate(
  adminUrl: string,
): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `receiver_template_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (admin) => admin.query(`CREATE DATABASE ${name}`));
  const db = createDatabase({ url: databaseUrl(adminUrl, name), poolMax: 2 });
  try {
    await migrateToLatest(db, createLogger('silent'));
  } finally {
    await db.destroy();
  }
  return {
    name,
    drop: async () => {
      await withAdmin(adminUrl, (admin) =>
        admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      );
    },
  };
}

/** Postgres refuses a copy while another copy of the same template is being made: wait. */
const TEMPLATE_IN_USE = '55006';
const COPY_ATTEMPTS = 100;

/** `CREATE DATABASE name TEMPLATE template`, retried while another file copies it too. */
export async function copyTemplate(adminUrl: string, template: string, name: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      await withAdmin(adminUrl, (admin) =>
        admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`),
      );
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== TEMPLATE_IN_USE || attempt >= COPY_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
    }
  }
}

export async function withAdmin<T>(
  adminUrl: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
