import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createLogger } from '../../../src/lib/logger.ts';
import { startEmbeddedPostgres } from '../../../src/lib/database/embedded-postgres.ts';
import type { Cleanup } from './cleanup.ts';
import { freePort } from './net.ts';

const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test';

export interface RunDatabase {
  url: string;
  /** Where it came from, for the report. */
  description: string;
}

/**
 * One Postgres for the whole run: a fresh, uniquely named database on the machine's Postgres
 * (TEST_DATABASE_URL, or the local default), dropped at the end; when none answers, an embedded
 * one in a fresh world-traversable temporary folder (as root it runs as the `postgres` user).
 */
export async function provideDatabase(cleanup: Cleanup): Promise<RunDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL ?? DEFAULT_ADMIN_URL;
  if (await answers(adminUrl)) {
    const name = `receiver_lb_${randomBytes(5).toString('hex')}`;
    await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
    cleanup.defer(`drop database ${name}`, async () => {
      await withClient(adminUrl, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      );
    });
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return { url: url.toString(), description: `database ${name} on ${url.host}` };
  }

  const dir = mkdtempSync(path.join(tmpdir(), 'receiver-lb-pg-'));
  chmodSync(dir, 0o755);
  cleanup.defer('remove embedded postgres folder', () =>
    rmSync(dir, { recursive: true, force: true }),
  );
  const port = await freePort();
  const embedded = await startEmbeddedPostgres({
    dataDir: dir,
    port,
    logger: createLogger('silent'),
    ephemeral: true,
  });
  cleanup.defer('stop embedded postgres', () => embedded.stop());
  return { url: embedded.url, description: `embedded postgres on port ${port}` };
}

async function answers(url: string): Promise<boolean> {
  try {
    await withClient(url, (client) => client.query('SELECT 1'));
    return true;
  } catch {
    return false;
  }
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
