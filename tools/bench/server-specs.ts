import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { providerHex } from '../../src/lib/platform-key.ts';
import type { Cleanup } from './cleanup.ts';
import type { ServerName } from './options.ts';
import {
  createBenchDatabase,
  databaseUrl,
  dropBenchDatabase,
  openStoreProbe,
  withClient,
  type StoreProbe,
} from './postgres.ts';
import { runtimeOf, type Runtime } from './runtime.ts';
import { freePort, startServer, type RunningServer } from './server-process.ts';

/**
 * The three servers under test, each started the way it would run in production: compiled
 * JavaScript, no TypeScript loader, and all three with the same Node flags and runtime
 * environment (runtime.ts). The receiver from dist/ (`npm run build`); the other two are not part
 * of the product, so the run compiles them on their own into .data/bench/servers/.
 */

export const BENCH_SERVERS_TSCONFIG = 'tools/bench/servers/tsconfig.json';
const BENCH_SERVERS_DIR = '.data/bench/servers';

export interface BenchServer {
  readonly name: ServerName;
  readonly process: RunningServer;
  /** The Node flags and runtime variables the process was really started with. */
  readonly runtime: Runtime;
  /** Servers that store deliveries: their database and where to count them. */
  readonly store?: {
    readonly database: string;
    readonly probe: StoreProbe;
    readonly table: string;
  };
}

export interface LaunchContext {
  projectDir: string;
  logDir: string;
  adminUrl: string;
  poolMax: number;
  /** Node flags and runtime variables for every server alike. */
  runtime: Runtime;
  /** Extra Node flags for this launch only (--profile's --cpu-prof); not part of the runtime. */
  profileArgs?: readonly string[];
  publicKey: KeyObject;
  secret: string;
  cleanup: Cleanup;
  /**
   * The receiver only: run on this existing database instead of a fresh one (the launch neither
   * creates nor drops it). --stored runs the receiver on an empty and on a large database.
   */
  database?: string;
  /** Names the log files when the same server runs more than once (`receiver-large`). */
  instance?: string;
  /** The receiver's entry point (default the build's); tests run src/cli/main.ts under tsx. */
  receiverScript?: string;
}

/** Only what a server needs: a developer's shell (METRICS_PORT, CAPTURE_DIR, ...) must not leak in. */
function baseEnv(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'production',
  };
}

export async function launchServer(name: ServerName, ctx: LaunchContext): Promise<BenchServer> {
  const port = await freePort();
  const logName = ctx.instance ?? name;
  const files = {
    stdoutFile: join(ctx.logDir, `${logName}.stdout.log`),
    stderrFile: join(ctx.logDir, `${logName}.stderr.log`),
  };
  const env = { ...baseEnv(), ...ctx.runtime.env, PORT: String(port) };

  if (name === 'bare') {
    const server = await start(ctx, {
      script: `${BENCH_SERVERS_DIR}/bare-echo.js`,
      env,
      port,
      readyPath: '/healthz',
      ...files,
    });
    return { name, ...server };
  }

  const database =
    name === 'receiver' && ctx.database ? ctx.database : await freshDatabase(ctx, name);
  const url = databaseUrl(ctx.adminUrl, database);

  if (name === 'receiver') {
    const server = await start(ctx, {
      script: ctx.receiverScript ?? 'dist/src/cli/main.js',
      args: ['serve'],
      env: {
        ...env,
        HOST: '127.0.0.1',
        DATABASE_URL: url,
        DATABASE_POOL_MAX: String(ctx.poolMax),
        // Hex DER PKCS#1, exactly what the platform's key endpoint serves.
        SIGNING_KEY: providerHex(ctx.publicKey),
        WEBHOOK_SECRETS: ctx.secret,
        METRICS_PORT: String(await freePort()),
        LOG_LEVEL: 'info',
        // May set a runtime variable too: the parity check then stops the run.
        ...receiverTuning(),
      },
      port,
      readyPath: '/readyz',
      ...files,
    });
    return { name, ...server, store: await probe(ctx, database, 'webhook_deliveries') };
  }

  await withClient(url, (client) =>
    client.query('CREATE TABLE webhooks (webhook_id bigint PRIMARY KEY, body jsonb NOT NULL)'),
  );
  const server = await start(ctx, {
    script: `${BENCH_SERVERS_DIR}/hand-written.js`,
    env: {
      ...env,
      DATABASE_URL: url,
      DATABASE_POOL_MAX: String(ctx.poolMax),
      SIGNING_KEY_PEM: ctx.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      WEBHOOK_SECRETS: ctx.secret,
    },
    port,
    readyPath: '/healthz',
    ...files,
  });
  return { name, ...server, store: await probe(ctx, database, 'webhooks') };
}

async function freshDatabase(ctx: LaunchContext, name: ServerName): Promise<string> {
  const database = await createBenchDatabase(ctx.adminUrl, name);
  ctx.cleanup.add(`drop database ${database}`, () => dropBenchDatabase(ctx.adminUrl, database));
  return database;
}

async function start(
  ctx: LaunchContext,
  launch: Omit<Parameters<typeof startServer>[0], 'nodeArgs'>,
): Promise<{ process: RunningServer; runtime: Runtime }> {
  const nodeArgs = [...ctx.runtime.nodeArgs, ...(ctx.profileArgs ?? [])];
  const server = await startServer({ ...launch, nodeArgs }, ctx.projectDir);
  ctx.cleanup.add(`stop ${launch.script}`, () => server.stop(), server.killNow);
  return { process: server, runtime: runtimeOf(ctx.runtime.nodeArgs, launch.env) };
}

async function probe(ctx: LaunchContext, database: string, table: string) {
  const store = await openStoreProbe(databaseUrl(ctx.adminUrl, database));
  ctx.cleanup.add('close store probe', () => store.close());
  return { database, probe: store, table };
}

/** BENCH_RECEIVER_ENV="WRITE_CONCURRENCY=2 WRITE_BATCH_MAX=200": settings to try on the receiver. */
function receiverTuning(): Record<string, string> {
  const pairs = (process.env.BENCH_RECEIVER_ENV ?? '').split(' ').filter(Boolean);
  return Object.fromEntries(
    pairs.map((pair) => [pair.split('=')[0], pair.split('=').slice(1).join('=')]),
  );
}
