import { randomBytes } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../../../tools/common/free-port.ts';
import { runCommandLine } from '../../support/command-line.ts';
import { runMain } from '../../support/receiver-process.ts';
import { generateSigningKeyPair, publicKeyAsProviderHex } from '../../support/signing.ts';
import { databaseUrl } from '../../support/test-database.ts';

/**
 * DATABASE_URL naming a database that is not there: nothing listens on its port (exit 1: start
 * Postgres and run again), or the server has no database of that name (exit 2: the variable is
 * wrong). Either way one line naming DATABASE_URL and the fix, never a stack, and never the
 * URL's password: serve as the real process, the operator commands as main runs them.
 */

const adminUrl = inject('adminDatabaseUrl');
const PASSWORD = 'not-to-be-printed';

/** A URL whose port nothing listens on (a real 127.0.0.1 port, just closed). */
async function unreachableUrl(): Promise<string> {
  return `postgres://postgres:${PASSWORD}@127.0.0.1:${await freePort()}/receiver`;
}

/** The test server, a database name it does not have. */
function missingUrl(): string {
  return databaseUrl(adminUrl, `missing_${randomBytes(4).toString('hex')}`);
}

const OPERATOR_COMMANDS = [
  ['migrate'],
  ['quarantine', 'list'],
  ['feed', 'status'],
  ['prune', '--dry-run'],
  ['recover', '--date', '2026-11-01'],
];

describe('a database missing or unreachable at start', () => {
  it.each([
    [
      'unreachable',
      1,
      unreachableUrl,
      /^DATABASE_URL: no database answers at 127\.0\.0\.1:\d+ \(connection refused\): start Postgres there, or fix DATABASE_URL$/,
    ],
    [
      'missing',
      2,
      () => Promise.resolve(missingUrl()),
      /^DATABASE_URL: database "missing_[0-9a-f]{8}" does not exist on [^ ]+: create it \(createdb .*\) and run npm run migrate, or point DATABASE_URL at the receiver's database$/,
    ],
  ] as const)(
    'when the database is %s, then every operator command prints one line naming DATABASE_URL and exits %i',
    async (_, code, url, line) => {
      const env = {
        DATABASE_URL: await url(),
        DATABASE_CONNECTION_TIMEOUT_MS: '5000',
        LOG_LEVEL: 'silent',
        PROVIDER_ENV: 'local',
        PROVIDER_API_KEY: 'database-at-start',
        PROVIDER_MACCOUNT: '6279059700000000',
      };
      for (const argv of OPERATOR_COMMANDS) {
        const run = await runCommandLine(argv, env);
        expect(run.code, `${argv.join(' ')}: ${run.stderr}`).toBe(code);
        expect(run.stderr.trim(), argv.join(' ')).toMatch(line);
        expect(run.stdout + run.stderr).not.toContain(PASSWORD);
      }
    },
  );

  it.each([
    ['unreachable', 1, unreachableUrl],
    ['missing', 2, () => Promise.resolve(missingUrl())],
  ] as const)(
    'when serve starts and the database is %s, then it exits %i with that one line, no stack',
    async (_, code, url) => {
      const signer = await generateSigningKeyPair();
      const service = runMain('serve', {
        DATABASE_URL: await url(),
        WEBHOOK_SECRETS: 'Basic ZGF0YWJhc2UtYXQtc3RhcnQ=',
        SIGNING_KEY: publicKeyAsProviderHex(signer.publicKey),
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        METRICS_PORT: 'off',
      });
      expect(await service.exited).toBe(code);
      const lines = service.output().trim().split('\n');
      expect(lines.at(-1)).toMatch(/^DATABASE_URL: /);
      expect(service.output()).not.toMatch(/\n\s+at /);
      expect(service.output()).not.toContain(PASSWORD);
    },
    60_000,
  );
});
