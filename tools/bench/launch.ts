import { execFileSync } from 'node:child_process';
import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { providerHex } from '../../src/lib/platform-key.ts';
import { freePort } from '../common/free-port.ts';
import { databaseUrl, withClient } from '../common/postgres.ts';
import { readMemory } from '../common/proc-stats.ts';
import { startServer, type RunningServer } from '../common/server-process.ts';
import type { Cleanup } from './cleanup.ts';
import type { ServerName } from './options.ts';
import type { Runtime } from './runtime.ts';
import {
  createBenchDatabase,
  dropBenchDatabase,
  openStoreProbe,
  type StoreProbe,
} from './store.ts';

/**
 * The servers under test, each started as production runs the receiver: compiled JavaScript, no
 * TypeScript loader, the Node flags and variables of `npm run start:prod` (runtime.ts), and
 * otherwise only PATH and HOME from the environment, so a developer's shell (METRICS_PORT,
 * CAPTURE_DIR, ...) cannot change what is measured. The receiver runs from dist/ (`npm run
 * build`); the two peers are not part of the product and are compiled on their own into
 * .data/bench/servers/.
 */

const SERVERS_TSCONFIG = 'tools/bench/servers/tsconfig.json';
const SERVERS_DIR = '.data/bench/servers';
/** DATABASE_POOL_MAX of the receiver and the size of the hand-written server's pool. */
const POOL_MAX = 10;

export interface BenchServer {
  readonly name: ServerName;
  readonly process: RunningServer;
  /** VmRSS right after the server answered ready. */
  readonly startRssBytes: number;
  /** Servers that store deliveries: their database and where to count them. */
  readonly store?: {
    readonly table: string;
    readonly probe: StoreProbe;
    /** An existing database (--database): never emptied; the rounds add to it. */
    readonly kept: boolean;
  };
}

export interface LaunchContext {
  projectDir: string;
  logDir: string;
  adminUrl: string;
  runtime: Runtime;
  /** Node flags for this launch only (--profile's --cpu-prof). */
  extraNodeArgs?: readonly string[];
  publicKey: KeyObject;
  secret: string;
  cleanup: Cleanup;
  /** The receiver only: this existing database instead of a fresh one. */
  database?: string;
}

/** `npm run build`, and the peers with their own tsconfig when they run too. */
export function buildServers(projectDir: string, withPeers: boolean): void {
  const run = (command: string, args: string[]) =>
    execFileSync(command, args, { cwd: projectDir, stdio: ['ignore', 2, 2] });
  run('npm', ['run', '--silent', 'build']);
  if (withPeers) run('npx', ['tsc', '-p', SERVERS_TSCONFIG]);
}

export async function launchServer(name: ServerName, ctx: LaunchContext): Promise<BenchServer> {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'production',
    ...ctx.runtime.env,
    PORT: String(port),
  };
  const start = async (script: string, extra: Record<string, string>, args: string[] = []) => {
    const server = await startServer(
      {
        script,
        args,
        nodeArgs: [...ctx.runtime.nodeArgs, ...(ctx.extraNodeArgs ?? [])],
        env: { ...env, ...extra },
        port,
        readyPath: name === 'receiver' ? '/readyz' : '/healthz',
        stdoutFile: join(ctx.logDir, `${name}.stdout.log`),
        stderrFile: join(ctx.logDir, `${name}.stderr.log`),
      },
      ctx.projectDir,
    );
    ctx.cleanup.add(`stop ${name}`, () => server.stop(), server.killNow);
    return { name, process: server, startRssBytes: readMemory(server.pid).rssBytes };
  };

  if (name === 'bare') return start(`${SERVERS_DIR}/bare-echo.js`, {});

  const kept = name === 'receiver' && ctx.database !== undefined;
  const database = kept && ctx.database ? ctx.database : await freshDatabase(ctx, name);
  const url = databaseUrl(ctx.adminUrl, database);
  const probe = await openStoreProbe(url);
  ctx.cleanup.add(`close the ${name} database probe`, () => probe.close());

  if (name === 'receiver') {
    const server = await start(
      'dist/src/cli/main.js',
      {
        HOST: '127.0.0.1',
        DATABASE_URL: url,
        DATABASE_POOL_MAX: String(POOL_MAX),
        // Hex DER PKCS#1, exactly what the platform's key endpoint serves.
        SIGNING_KEY: providerHex(ctx.publicKey),
        WEBHOOK_SECRETS: ctx.secret,
        METRICS_PORT: String(await freePort()),
        LOG_LEVEL: 'info',
      },
      ['serve'],
    );
    return { ...server, store: { table: 'webhook_deliveries', probe, kept } };
  }

  await withClient(url, (client) =>
    client.query('CREATE TABLE webhooks (webhook_id bigint PRIMARY KEY, body jsonb NOT NULL)'),
  );
  const server = await start(`${SERVERS_DIR}/hand-written.js`, {
    DATABASE_URL: url,
    DATABASE_POOL_MAX: String(POOL_MAX),
    SIGNING_KEY_PEM: ctx.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    WEBHOOK_SECRETS: ctx.secret,
  });
  return { ...server, store: { table: 'webhooks', probe, kept: false } };
}

async function freshDatabase(ctx: LaunchContext, name: ServerName): Promise<string> {
  const database = await createBenchDatabase(ctx.adminUrl, name);
  ctx.cleanup.add(`drop database ${database}`, () => dropBenchDatabase(ctx.adminUrl, database));
  return database;
}
