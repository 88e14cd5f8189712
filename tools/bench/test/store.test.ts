import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, withClient } from '../../common/postgres.ts';
import { DEFAULT_ADMIN_DATABASE_URL } from '../options.ts';
import { createBenchDatabase, dropBenchDatabase, openStoreProbe } from '../store.ts';

/**
 * What the rounds do to a server's database between rounds: the receiver's (migrated) keeps the
 * rows it reads as settings (feed endpoints, the notification key) with every endpoint's cursor
 * back at the start; the hand-written receiver's (one table) is simply emptied.
 */

const run = promisify(execFile);
const PROJECT_DIR = fileURLToPath(new URL('../../..', import.meta.url));
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? DEFAULT_ADMIN_DATABASE_URL;
const databases: string[] = [];

async function database(name: string): Promise<string> {
  const created = await createBenchDatabase(ADMIN_URL, name);
  databases.push(created);
  return databaseUrl(ADMIN_URL, created);
}

let receiverUrl: string;
let plainUrl: string;

beforeAll(async () => {
  receiverUrl = await database('store_test');
  await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'migrate'], {
    cwd: PROJECT_DIR,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      DATABASE_URL: receiverUrl,
      LOG_LEVEL: 'warn',
    },
  });
  await run('psql', [receiverUrl, '-q', '-v', 'deliveries=20', '-f', 'tools/bench/seed-2m.sql'], {
    cwd: PROJECT_DIR,
  });
  plainUrl = await database('store_plain');
  await withClient(plainUrl, (client) =>
    client.query('CREATE TABLE webhooks (id bigint PRIMARY KEY); INSERT INTO webhooks VALUES (1)'),
  );
}, 120_000);

afterAll(async () => {
  for (const name of databases) await dropBenchDatabase(ADMIN_URL, name);
});

describe('the bench between rounds', () => {
  it("when the receiver's tables are emptied, then its feed endpoints and notification key stay, each cursor back at 0", async () => {
    const probe = await openStoreProbe(receiverUrl);
    try {
      await probe.addFeedEndpoints(2, 'http://127.0.0.1:9/feed');
      await withClient(receiverUrl, (client) =>
        client.query('UPDATE feed_endpoints SET fanned_through = 20'),
      );
      expect(await probe.count('webhook_deliveries')).toBe(20);
      await probe.truncateAll();
      expect(await probe.count('webhook_deliveries')).toBe(0);
      expect(await probe.count('feed_events')).toBe(0);
      expect(await probe.count('feed_notification_key')).toBe(1);
      const endpoints = await withClient(receiverUrl, (client) =>
        client.query<{ name: string; fanned_through: string; secrets: string[] }>(
          'SELECT name, fanned_through::text, secrets FROM feed_endpoints ORDER BY name',
        ),
      );
      expect(endpoints.rows.map((row) => [row.name, row.fanned_through])).toEqual([
        ['bench-1', '0'],
        ['bench-2', '0'],
        ['configured', '0'],
      ]);
      expect(endpoints.rows[0]!.secrets[0]).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    } finally {
      await probe.close();
    }
  });

  it("when the hand-written receiver's table is emptied, then nothing else is asked of it", async () => {
    const probe = await openStoreProbe(plainUrl);
    try {
      await probe.truncateAll();
      expect(await probe.count('webhooks')).toBe(0);
    } finally {
      await probe.close();
    }
  });
});
