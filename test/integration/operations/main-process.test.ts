import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyBytes, freshWebhookId } from '../../support/deliveries.ts';
import { freePort } from '../../../tools/common/free-port.ts';
import {
  answers,
  MAIN_SCRIPT,
  PROJECT_DIR,
  runMain as run,
  waitFor,
} from '../../support/receiver-process.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import {
  generateSigningKeyPair,
  publicKeyAsProviderHex,
  signBody,
  type SigningKeyPair,
} from '../../support/signing.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * The real entry point as an operator runs it: `src/cli/main.ts serve` in its own process,
 * configured only through the environment, on the embedded Postgres, stopped with SIGTERM; and the
 * command line itself (`main.ts <command>`): its commands, its help, its exit codes.
 */

const SECRET = 'Basic bWFpbi1wcm9jZXNzLXRlc3Q=';
const FEED_TOKEN = 'main-process-feed-token-0123456789';

let signer: SigningKeyPair;
let dataDir: string;
let database: TestDatabase;

beforeAll(async () => {
  signer = await generateSigningKeyPair();
  dataDir = mkdtempSync(path.join(tmpdir(), 'receiver-main-'));
  chmodSync(dataDir, 0o755);
  database = await createTestDatabase();
});
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await database.drop();
});

/** The first log line with this message, parsed. */
function logLine(output: string, msg: string): Record<string, unknown> | undefined {
  const line = output.split('\n').find((l) => l.includes(`"msg":"${msg}"`));
  return line === undefined ? undefined : (JSON.parse(line) as Record<string, unknown>);
}

describe('the service process', () => {
  it('when started with no DATABASE_URL, then it serves on the embedded Postgres, stores a delivery, hands it on through GET /feed on its own port, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const metricsPort = await freePort();
    const feedPort = await freePort();
    const embeddedPort = await freePort();
    const service = run('serve', {
      FEED_TOKEN: FEED_TOKEN,
      FEED_PORT: String(feedPort),
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      EMBEDDED_POSTGRES_DIR: path.join(dataDir, 'pg'),
      EMBEDDED_POSTGRES_PORT: String(embeddedPort),
      SIGNING_KEY: publicKeyAsProviderHex(signer.publicKey),
      WEBHOOK_SECRETS: SECRET,
    });
    try {
      await waitFor(
        () => service.output().includes('receiver listening'),
        'the service to listen',
        60_000,
      );
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/readyz`)).status).toBe(200);

      const body = bodyBytes(nppPayment());
      const res = await fetch(`${base}/webhooks/NPPReceivePayment`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Webhookid: freshWebhookId(),
          Authorisation: SECRET,
          'Verification-Signature': signBody(body, signer.privateKey),
        },
        body,
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        status: 'Ok',
        statusDescription: 'Delivery stored',
      });

      // Metrics are on their own listener, on loopback, never on the public one.
      expect((await fetch(`${base}/metrics`)).status).toBe(404);
      const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(
        /webhook_deliveries_total\{event="NPPReceivePayment",outcome="stored"\} 1/,
      );
      expect(logLine(service.output(), 'receiver listening')?.addresses).toEqual([
        { address: '127.0.0.1', family: 'IPv4', port },
        { address: '127.0.0.1', family: 'IPv4', port: metricsPort },
        { address: '127.0.0.1', family: 'IPv4', port: feedPort },
      ]);

      const auth = { Authorization: `Bearer ${FEED_TOKEN}` };
      const feed = await fetch(`http://127.0.0.1:${feedPort}/feed?wait=20`, { headers: auth });
      expect(feed.status).toBe(200);
      const page = (await feed.json()) as { events: { type: string }[]; next: string };
      expect(page.events.map((e) => e.type)).toEqual(['payment.received']);
      expect(page.next).toBe('1');
      // Not on the public listener.
      expect((await fetch(`${base}/feed`, { headers: auth })).status).toBe(404);

      // Where the embedded database is, without its password.
      const listening = logLine(service.output(), 'receiver listening');
      expect(listening?.embeddedDatabase).toMatchObject({
        url: `postgres://postgres@localhost:${embeddedPort}/postgres`,
        passwordFile: expect.stringMatching(/password$/),
      });
      // An operator command reaches the running receiver's embedded database (not a new one).
      const status = run(
        'feed',
        {
          EMBEDDED_POSTGRES_DIR: path.join(dataDir, 'pg'),
          EMBEDDED_POSTGRES_PORT: String(embeddedPort),
          LOG_LEVEL: 'silent',
        },
        { args: ['status'] },
      );
      expect(await status.exited, status.output()).toBe(0);
      expect(status.output()).toMatch(/last position:\s+1/);

      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
      expect(service.output()).toContain('"msg":"stopped"');
      expect(service.output()).not.toContain('bWFpbi1wcm9jZXNzLXRlc3Q');
      expect(service.output()).not.toContain(FEED_TOKEN);
    } finally {
      service.child.kill('SIGKILL');
    }
  }, 90_000);

  it('when configuration is bad, then it refuses to start and names every bad variable', async () => {
    const service = run('serve', {
      PORT: 'eighty',
      PROVIDER_ENV: 'staging',
      WEBHOOK_SECRETS: SECRET,
    });
    expect(await service.exited).toBe(2);
    expect(service.output()).toMatch(/PORT: /);
    expect(service.output()).toMatch(/PROVIDER_ENV: /);
    expect(service.output()).not.toMatch(/\n\s+at /); // no stack trace
  });

  it.each([
    ['PORT', 'PORT'],
    ['METRICS_PORT', 'METRICS_PORT'],
  ])(
    'when the port of %s is taken by another program, then it exits 2 naming the variable, without a stack trace',
    async (_, variable) => {
      const port = await freePort();
      const blocker = createServer().listen(port, '127.0.0.1');
      await new Promise((resolve) => blocker.once('listening', resolve));
      try {
        const service = run('serve', {
          WEBHOOK_SECRETS: SECRET,
          DATABASE_URL: database.url,
          HOST: '127.0.0.1',
          PORT: String(variable === 'PORT' ? port : await freePort()),
          METRICS_PORT: String(variable === 'METRICS_PORT' ? port : await freePort()),
          SIGNING_KEY: publicKeyAsProviderHex(signer.publicKey),
        });
        expect(await service.exited).toBe(2);
        expect(service.output()).toContain(`${variable}: 127.0.0.1:${port} is already in use`);
        expect(service.output()).not.toMatch(/\n\s+at /);
      } finally {
        blocker.close();
      }
    },
  );

  it('when MIGRATE_ON_START=false and the database lacks a migration, then it exits 2 saying to run the migration job; once migrated it starts', async () => {
    const empty = await createTestDatabase(async () => {});
    try {
      const env = {
        WEBHOOK_SECRETS: SECRET,
        MIGRATE_ON_START: 'false',
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        METRICS_PORT: 'off',
        SIGNING_KEY: publicKeyAsProviderHex(signer.publicKey),
      };
      const refused = run('serve', { ...env, DATABASE_URL: empty.url });
      expect(await refused.exited).toBe(2);
      expect(refused.output()).toMatch(/lacks \d+ migration\(s\).*npm run migrate:prod/);
      expect(await empty.count('pg_tables WHERE schemaname = $$public$$')).toBe(0);
      const started = run('serve', { ...env, DATABASE_URL: database.url });
      try {
        await waitFor(() => started.output().includes('receiver listening'), 'listening', 30_000);
      } finally {
        started.child.kill('SIGTERM');
        await started.exited;
      }
    } finally {
      await empty.drop();
    }
  });

  it.each([
    ['production', 'https://api.m-pay.com.au/public/v1/certificate/public-key'],
    ['sandbox', 'https://api.mpay.com.au/public/v1/certificate/public-key'],
  ])(
    "when PROVIDER_ENV=%s and SIGNING_KEY_URL is the other platform's key, then it exits 2 naming both, before any database starts",
    async (providerEnv, keyUrl) => {
      const service = run('serve', {
        PROVIDER_ENV: providerEnv,
        SIGNING_KEY_URL: keyUrl,
        WEBHOOK_SECRETS: SECRET,
        EMBEDDED_POSTGRES_DIR: path.join(dataDir, 'never-started'),
        EMBEDDED_POSTGRES_PORT: String(await freePort()),
      });
      expect(await service.exited).toBe(2);
      expect(service.output()).toMatch(
        new RegExp(
          `PROVIDER_ENV, SIGNING_KEY_URL: must point at one platform: PROVIDER_ENV=${providerEnv}`,
        ),
      );
      expect(service.output()).not.toMatch(/\n\s+at /);
      expect(service.output()).not.toContain('embedded postgres');
    },
  );

  it('when TRUST_PROXY is not something Express understands, then it exits 2 naming it, before any database starts', async () => {
    const service = run('serve', {
      TRUST_PROXY: 'maybe',
      WEBHOOK_SECRETS: SECRET,
      EMBEDDED_POSTGRES_DIR: path.join(dataDir, 'never-started'),
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
    });
    expect(await service.exited).toBe(2);
    expect(service.output()).toMatch(/^\s+TRUST_PROXY: .*maybe/m);
    expect(service.output()).not.toContain('embedded postgres');
  });

  it.each([
    ['unset', {}],
    ['blank (as an unfilled Compose default passes it)', { WEBHOOK_SECRETS: ' ' }],
  ])(
    'when WEBHOOK_SECRETS is %s and running without one is not asked for, then it exits 2 saying what to set',
    async (_, env) => {
      const service = run('serve', {
        ...env,
        DATABASE_URL: 'postgres://127.0.0.1:1/none',
      });
      expect(await service.exited).toBe(2);
      expect(service.output()).toMatch(/WEBHOOK_SECRETS: .*ALLOW_NO_WEBHOOK_SECRET=true/);
    },
  );

  it('when started with --dotenv, then the file is read, the process environment wins over it, and running without a secret is a logged warning', async () => {
    const port = await freePort();
    const envFile = path.join(dataDir, 'receiver.env');
    // PORT in the file is bad: the process's own PORT must win, or the start fails.
    writeFileSync(envFile, 'PORT=eighty\nALLOW_NO_WEBHOOK_SECRET=true\n');
    const service = run(
      'serve',
      {
        PORT: String(port),
        HOST: '127.0.0.1',
        METRICS_PORT: 'off',
        DATABASE_URL: database.url,
        SIGNING_KEY: publicKeyAsProviderHex(signer.publicKey),
      },
      { args: ['--dotenv', envFile] },
    );
    try {
      await waitFor(() => answers(`http://127.0.0.1:${port}/readyz`), 'the service', 60_000);
      await waitFor(() => logLine(service.output(), 'receiver listening') !== undefined, 'log');
      expect(logLine(service.output(), 'receiver listening')).toMatchObject({
        sharedSecretCheck: false,
        envFile,
      });
      expect(service.output()).toMatch(/"level":40,.*"msg":"ALLOW_NO_WEBHOOK_SECRET=true: /);
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
    } finally {
      service.child.kill('SIGKILL');
    }
  }, 90_000);

  it("when started through the README's own `npm start` (no .env in the checkout), then its arguments reach the receiver", async () => {
    // `npm start` is the documented command: whatever its script passes must survive tsx and
    // node's own option parsing (node refuses an --env-file that does not exist).
    const child = spawn('npm', ['start', '--silent', '--', '--help'], {
      cwd: PROJECT_DIR,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(output).toMatch(/Usage: main serve \[--dotenv <path>\]/);
    expect(code).toBe(0);
  });

  it('when asked for --help, then it prints the usage and exits 0', async () => {
    const service = run('serve', {}, { args: ['--help'] });
    expect(await service.exited).toBe(0);
    expect(service.output()).toMatch(/^Usage: main serve \[--dotenv <path>\]/);
  });

  it('when SIGNING_KEY is not a key, then it refuses to start naming SIGNING_KEY', async () => {
    const service = run('serve', {
      WEBHOOK_SECRETS: SECRET,
      SIGNING_KEY: 'not a key',
      DATABASE_URL: 'postgres://127.0.0.1:1/none',
    });
    expect(await service.exited).toBe(2);
    expect(service.output()).toMatch(/SIGNING_KEY: /);
  });
});

/** `main.ts <args>` in its own process: its exit code, stdout and stderr apart. */
async function main(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN_SCRIPT, ...args], {
    cwd: PROJECT_DIR,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stdout, stderr };
}

const COMMANDS = ['serve', 'migrate', 'feed', 'provider', 'recover', 'quarantine', 'prune'];

describe('the command line (main.ts <command>)', () => {
  it('when asked for --help, then it lists every command with a line each on stdout and exits 0', async () => {
    const { code, stdout, stderr } = await main(['--help']);
    expect(code, stderr).toBe(0);
    for (const command of COMMANDS) expect(stdout).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
    expect(stdout).toMatch(/Exit 0: done; 1: a failure at run time/);
  });

  it('when no command or an unknown one is given, then it prints the usage on stderr and exits 2', async () => {
    const [none, unknown] = await Promise.all([main([]), main(['serv'])]);
    for (const run of [none, unknown]) {
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      for (const command of COMMANDS) expect(run.stderr).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
    expect(unknown.stderr).toMatch(/^unknown command: serv$/m);
  });

  it('when asked for <command> --help, then each prints its own help and exits 0', async () => {
    const helps: Record<string, RegExp> = {
      serve: /^Usage: main serve \[--dotenv <path>\]/,
      migrate: /^usage: npm run migrate/,
      feed: /^Usage: npm run feed -- <command>/,
      provider: /^usage: npm run provider -- <command>/,
      recover: /^usage: npm run recover -- \[--date YYYY-MM-DD/,
      quarantine: /^usage: npm run quarantine -- <command>/,
      prune: /^usage: npm run prune -- \[--dry-run\]/,
    };
    const runs = await Promise.all(COMMANDS.map((command) => main([command, '--help'])));
    COMMANDS.forEach((command, i) => {
      const run = runs[i]!;
      expect(run.code, `${command}: ${run.stderr}`).toBe(0);
      // provider lists its commands on stderr (stdout is for JSON results only).
      expect(run.stdout + run.stderr, command).toMatch(helps[command]!);
    });
  }, 60_000);

  it('when the configuration is bad, then migrate and feed exit 2 naming the variable, without a stack trace', async () => {
    // Until the one command line, migrate and feed exited 1 for this: now 2, as serve always did.
    const env = { LOG_LEVEL: 'loud', DATABASE_URL: 'postgres://127.0.0.1:1/none' };
    const runs = await Promise.all([main(['migrate'], env), main(['feed', 'status'], env)]);
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/^Invalid configuration:\n\s+LOG_LEVEL: /);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    const usage = await main(['migrate', '--bogus']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/'--bogus'[\s\S]*usage: npm run migrate/);
  });

  it('when the database cannot be reached, then migrate exits 1 in one line naming DATABASE_URL', async () => {
    const closed = await freePort();
    const run = await main(['migrate'], {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/none`,
      DATABASE_CONNECTION_TIMEOUT_MS: '2000',
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      `DATABASE_URL: no database answers at 127.0.0.1:${closed} (connection refused): start Postgres there, or fix DATABASE_URL`,
    );
  });
});
