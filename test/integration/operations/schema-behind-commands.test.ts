import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../../tools/common/free-port.ts';
import { createMigrator } from '../../../src/lib/database/migrator.ts';
import { createDatabase } from '../../../src/lib/database/database.ts';
import {
  exitWithin,
  runMain,
  runScript,
  type RunningProcess,
} from '../../support/receiver-process.ts';
import { generateSigningKeyPair, publicKeyAsProviderHex } from '../../support/signing.ts';
import { databaseUrl } from '../../support/test-database.ts';

/**
 * A release whose migration has not been applied yet: every command that opens the database
 * refuses it (exit 2, saying to run `npm run migrate`) and none migrates it on its own; only
 * `migrate` does. Each command is the real process, against its own copy of a database one
 * migration short (so that one command migrating it cannot hide what another does).
 */

const adminUrl = inject('adminDatabaseUrl');
const prefix = `schema_behind_${randomBytes(4).toString('hex')}`;
const TEMPLATE = `${prefix}_template`;
const made: string[] = [];
let outDir: string;

async function admin(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A copy of the template (every migration but the last this release knows): its URL. */
async function shortDatabase(): Promise<string> {
  const name = `${prefix}_${made.length}`;
  await admin(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
  made.push(name);
  return databaseUrl(adminUrl, name);
}

async function appliedIn(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('SELECT name FROM kysely_migration')).rowCount ?? 0;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  await admin(`CREATE DATABASE ${TEMPLATE}`);
  made.push(TEMPLATE);
  const db = createDatabase({ url: databaseUrl(adminUrl, TEMPLATE), poolMax: 2 });
  try {
    const names = (await createMigrator(db).getMigrations()).map((m) => m.name);
    const { error } = await createMigrator(db).migrateTo(names.at(-2)!);
    if (error) throw error;
  } finally {
    await db.destroy();
  }
  outDir = mkdtempSync(path.join(tmpdir(), 'schema-behind-'));
});
afterAll(async () => {
  rmSync(outDir, { recursive: true, force: true });
  for (const name of made.reverse()) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
});

describe('a database one migration behind the release', () => {
  it('when any command opens it, then it exits 2 naming `npm run migrate` and nothing migrates it; `migrate` then brings it up and the commands run', async () => {
    const closed = await freePort();
    const signer = await generateSigningKeyPair();
    const env = {
      DATABASE_CONNECTION_TIMEOUT_MS: '5000',
      LOG_LEVEL: 'silent',
      WEBHOOK_SECRETS: 'Basic c2NoZW1hLWJlaGluZA==',
      SIGNING_KEY: publicKeyAsProviderHex(signer.publicKey),
      // A platform that is not there: a command that got past the check would fail on it (1).
      PROVIDER_BASE_URL: `http://127.0.0.1:${closed}`,
      PROVIDER_AUTH_URL: `http://127.0.0.1:${closed}`,
      PROVIDER_API_KEY: 'schema-behind-key',
      PROVIDER_MACCOUNT: '6279059700000000',
      RECOVERY_INTERVAL_MS: '0',
      RETENTION_INTERVAL_MS: '0',
    };
    const template = await appliedIn(databaseUrl(adminUrl, TEMPLATE));
    const serveEnv = {
      ...env,
      MIGRATE_ON_START: 'false',
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      METRICS_PORT: 'off',
    };
    const commands: [string, (url: string) => RunningProcess][] = [
      [
        'serve (MIGRATE_ON_START=false)',
        (url) => runMain('serve', { ...serveEnv, DATABASE_URL: url }),
      ],
      [
        'feed status',
        (url) => runMain('feed', { ...env, DATABASE_URL: url }, { args: ['status'] }),
      ],
      [
        'feed start-after now --dry-run',
        (url) =>
          runMain(
            'feed',
            { ...env, DATABASE_URL: url },
            { args: ['start-after', 'now', '--dry-run'] },
          ),
      ],
      [
        'quarantine list',
        (url) => runMain('quarantine', { ...env, DATABASE_URL: url }, { args: ['list'] }),
      ],
      [
        'prune --dry-run',
        (url) => runMain('prune', { ...env, DATABASE_URL: url }, { args: ['--dry-run'] }),
      ],
      [
        'recover',
        (url) =>
          runMain('recover', { ...env, DATABASE_URL: url }, { args: ['--date', '2026-11-01'] }),
      ],
      [
        'provider refunds',
        (url) =>
          runMain(
            'provider',
            { ...env, DATABASE_URL: url },
            {
              args: ['refunds', '--caller-reference', 'order-1'],
            },
          ),
      ],
      [
        'provider refund',
        (url) =>
          runMain(
            'provider',
            { ...env, DATABASE_URL: url },
            {
              args: ['refund', '--transaction-id', 'T-1', '--caller-reference', 'order-1'],
            },
          ),
      ],
      [
        'provider refund-resolve',
        (url) =>
          runMain(
            'provider',
            { ...env, DATABASE_URL: url },
            {
              args: [
                'refund-resolve',
                '--caller-reference',
                'order-1',
                '--outcome',
                'not-paid',
                '--by',
                'ops',
                '--evidence',
                'ticket 1',
              ],
            },
          ),
      ],
      [
        'export-quarantine',
        (url) =>
          runScript(
            'tools/capture/export-quarantine-cli.ts',
            { ...env, DATABASE_URL: url },
            {
              args: ['--out', outDir],
            },
          ),
      ],
    ];
    const urls = new Map<string, string>();
    for (const [name] of commands) urls.set(name, await shortDatabase());
    const runs = Object.fromEntries(
      commands.map(([name, start]) => [name, start(urls.get(name)!)] as const),
    );
    const codes: Record<string, number | null | 'still running'> = {};
    try {
      for (const [name, run] of Object.entries(runs)) codes[name] = await exitWithin(run, 60_000);
    } finally {
      for (const run of Object.values(runs)) run.child.kill('SIGKILL');
    }
    const everyOne = Object.fromEntries(Object.keys(runs).map((name) => [name, 2]));
    expect(
      codes,
      Object.values(runs)
        .map((r) => r.output())
        .join('\n---\n'),
    ).toEqual(everyOne);
    for (const [name, run] of Object.entries(runs)) {
      expect(run.output(), name).toMatch(/lacks 1 migration\(s\).*run `npm run migrate`/);
      expect(run.output(), name).not.toMatch(/\n\s+at /);
    }
    // None of them migrated its copy.
    for (const [name, url] of urls) expect(await appliedIn(url), name).toBe(template);

    const url = urls.get('feed status')!;
    const migrate = runMain('migrate', { ...env, DATABASE_URL: url });
    expect(await migrate.exited, migrate.output()).toBe(0);
    expect(await appliedIn(url)).toBe(template + 1);
    const status = runMain('feed', { ...env, DATABASE_URL: url }, { args: ['status'] });
    expect(await status.exited, status.output()).toBe(0);
  }, 150_000);
});
