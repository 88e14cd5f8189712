import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxClient } from '../core/client.ts';
import { runCommandLine } from '../../../src/cli/command-line.ts';
import { DEFAULT_API_KEY } from '../cli-options.ts';

const MAIN = path.resolve(import.meta.dirname, '../main.ts');
const TSX = path.resolve(import.meta.dirname, '../../../node_modules/.bin/tsx');
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function sandboxEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('SANDBOX_')) delete env[name];
  return env;
}

describe('npm run sandbox (the process)', () => {
  it('when run with --help, then it prints the usage and exits 0; with a bad option value, exits 2 naming it', () => {
    const help = spawnSync(TSX, [MAIN, '--help'], {
      encoding: 'utf8',
      env: sandboxEnv(),
      timeout: 30_000,
    });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--state <file>');
    const bad = spawnSync(TSX, [MAIN, '--port', 'x'], {
      encoding: 'utf8',
      env: { ...sandboxEnv(), SANDBOX_MACCOUNT: '123' },
      timeout: 30_000,
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('SANDBOX_PORT');
    expect(bad.stderr).toContain('SANDBOX_MACCOUNT: must be 16 digits');
  });

  it.each([
    ['npm run sandbox', []],
    ['npm run sandbox -- simulate', ['simulate']],
  ])(
    'when the --port of %s is taken, then it exits 2 in one line naming --port',
    async (_, command: string[]) => {
      const blocker = createServer().listen(0, '127.0.0.1');
      await new Promise((resolve) => blocker.once('listening', resolve));
      const { port } = blocker.address() as AddressInfo;
      try {
        const run = spawnSync(TSX, [MAIN, ...command, '--port', String(port)], {
          encoding: 'utf8',
          env: sandboxEnv(),
          timeout: 30_000,
        });
        expect(run.status, run.stderr).toBe(2);
        expect(run.stderr.trim()).toBe(
          `--port ${port} is in use: choose another with --port (or SANDBOX_PORT)`,
        );
      } finally {
        blocker.close();
      }
    },
  );

  it('when trigger is asked for --help, then it lists the events and exits 0; with no sandbox there, exits 2 in one line', () => {
    const help = spawnSync(TSX, [MAIN, 'trigger', '--help'], {
      encoding: 'utf8',
      env: sandboxEnv(),
      timeout: 30_000,
    });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('refund-settlement');
    const nowhere = spawnSync(
      TSX,
      [MAIN, 'trigger', 'npp-payment', '--sandbox', 'http://127.0.0.1:1'],
      {
        encoding: 'utf8',
        env: sandboxEnv(),
        timeout: 30_000,
      },
    );
    expect(nowhere.status).toBe(2);
    expect(nowhere.stderr.trim()).toBe(
      'no sandbox at http://127.0.0.1:1: start one with npm run sandbox (or give --sandbox <url>)',
    );
  });

  it('when started with --state, then it prints its URL, credentials and the PROVIDER_* lines (which, pasted, let the CLI subscribe an http loopback receiver), serves, and saves the state when stopped', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sandbox-main-'));
    dirs.push(dir);
    const stateFile = path.join(dir, 'state.json');
    const child = spawn(
      TSX,
      [MAIN, '--port', '0', '--state', stateFile, '--key-file', path.join(dir, 'key.pem')],
      { env: sandboxEnv() },
    );
    try {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start-up line: ${output}`)), 30_000);
        child.stdout.on('data', () => {
          const match = /sandbox: (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
          if (match && output.includes('Ctrl-C')) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
      });
      expect(output).toContain(`API key ${DEFAULT_API_KEY}`);
      // The lines it prints for the command line, pasted as they are, reach it.
      const pasted = Object.fromEntries(
        [...output.matchAll(/^ {2}((?:PROVIDER|SIGNING_KEY)_\w+)=(\S+)$/gm)].map((m) => [
          m[1]!,
          m[2]!,
        ]),
      );
      expect(pasted).toEqual({
        PROVIDER_ENV: 'local',
        PROVIDER_BASE_URL: url,
        PROVIDER_AUTH_URL: url,
        PROVIDER_API_KEY: DEFAULT_API_KEY,
        PROVIDER_MACCOUNT: '6279059700000001',
        SIGNING_KEY_URL: `${url}/public/v1/certificate/public-key`,
        SIGNING_KEY_ALLOW_HTTP: 'true',
      });
      const target = 'http://127.0.0.1:3000/webhooks/NPPReceivePayment';
      const subscribed = await runCommandLine(
        ['provider', 'subscriptions', '--event', 'NPPReceivePayment', '--target-url', target],
        {
          env: { ...pasted, LOG_LEVEL: 'silent' },
          out: () => {},
          err: () => {},
          projectDir: dir,
        },
      );
      expect(subscribed).toBe(0);
      const call = sandboxClient(url, DEFAULT_API_KEY);
      const wallet = await call('POST', '/sandbox/wallets', {
        body: { name: 'Jane', email: 'j@x.com', mobile: '0412345678' },
      });
      expect(wallet.status).toBe(200);
      expect((await call('GET', '/mWallet/v1/search')).body.mWallets).toHaveLength(1);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(existsSync(path.join(dir, 'key.pem'))).toBe(true);
      const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as {
        wallets: { accountNumber: string }[];
        subscriptions: { targetUrl: string }[];
      };
      expect(saved.wallets.map((w) => w.accountNumber)).toEqual([wallet.body.accountNumber]);
      expect(saved.subscriptions.map((s) => s.targetUrl)).toEqual([target]);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
