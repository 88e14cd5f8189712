import { spawn, type ChildProcess } from 'node:child_process';
import type { KeyObject } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { providerHex } from '../../../src/lib/platform-key.ts';
import { freePort } from '../../common/free-port.ts';
import type { Cleanup } from './cleanup.ts';
import type { BenchOptions, ServerName } from './options.ts';
import {
  createBenchDatabase,
  databaseUrl,
  dropBenchDatabase,
  openStoreProbe,
  withClient,
  type StoreProbe,
} from './postgres.ts';
import { runtimeDifferences, runtimeOf, sharedRuntime, type Runtime } from './runtime.ts';

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

/**
 * Starts every server of the run with the same runtime (plus --cpu-prof under --profile), then
 * checks that they really run alike: a difference stops the run before anything is measured,
 * unless --allow-unequal-runtime, when the report fails the parity check instead.
 */
export async function launchServers(
  options: BenchOptions,
  ctx: Omit<LaunchContext, 'runtime' | 'profileArgs'> & { benchDir: string },
  log: (line: string) => void,
): Promise<BenchServer[]> {
  const runtime = sharedRuntime(
    options.runtime,
    startProdScript(ctx.projectDir),
    process.env.BENCH_NODE_ARGS,
  );
  const launches = await Promise.allSettled(
    options.only.map((name) => {
      const dir = profileDir(ctx.benchDir, name);
      if (options.profile) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir, { recursive: true });
      }
      return launchServer(name, {
        ...ctx,
        runtime,
        ...(options.profile && { profileArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] }),
      });
    }),
  );
  const servers: BenchServer[] = [];
  for (const launch of launches) {
    if (launch.status === 'rejected') throw launch.reason;
    const { name, process } = launch.value;
    servers.push(launch.value);
    log(`started ${ctx.instance ?? name} (pid ${process.pid}) at ${process.url}`);
  }
  const differences = runtimeDifferences(servers);
  if (differences.length > 0) {
    const problem = `the servers do not run like for like: ${differences.join('; ')}`;
    if (!options.allowUnequalRuntime) throw new Error(`${problem} (see --allow-unequal-runtime)`);
    log(`WARNING: ${problem}; measuring anyway, the report fails the parity check`);
  }
  return servers;
}

/** `npm run start:prod` as package.json has it: the production runtime is read from there. */
function startProdScript(projectDir: string): string {
  const pkg = JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const script = pkg.scripts?.['start:prod'];
  if (!script) throw new Error('package.json has no start:prod script');
  return script;
}

/** Where --profile has a server write its profile: one directory per server. */
export function profileDir(benchDir: string, server: string): string {
  return join(benchDir, 'profile', server);
}

/**
 * One server under test as its own process: `node <compiled script>`, stdout to a log file
 * (so the receiver's per-delivery log lines are really written), stderr to another.
 */

interface ServerLaunch {
  script: string;
  /** The script's own arguments (after it): `serve` for the receiver's dist/src/cli/main.js. */
  args?: readonly string[];
  /** Node flags (before the script): the same for every server, see runtime.ts. */
  nodeArgs: readonly string[];
  env: Record<string, string>;
  port: number;
  /** Answers 200 once the server can take deliveries. */
  readyPath: string;
  stdoutFile: string;
  stderrFile: string;
}

export interface RunningServer {
  readonly pid: number;
  readonly url: string;
  /** SIGTERM, then SIGKILL if it has not exited in time. Safe to call twice. */
  stop(): Promise<void>;
  /** Last resort on the way out of a crashed run: SIGKILL now, no waiting. */
  killNow(): void;
  /** Undefined while running; otherwise why it stopped, with the end of its stderr. */
  exitReport(): string | undefined;
}

const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;

export async function startServer(launch: ServerLaunch, cwd: string): Promise<RunningServer> {
  const stdout = openSync(launch.stdoutFile, 'w');
  const stderr = openSync(launch.stderrFile, 'w');
  const child = spawn(
    process.execPath,
    [...launch.nodeArgs, launch.script, ...(launch.args ?? [])],
    {
      cwd,
      env: launch.env,
      stdio: ['ignore', stdout, stderr],
    },
  );
  closeSync(stdout);
  closeSync(stderr);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.pid === undefined) throw new Error(`could not start ${launch.script}`);
  const running = () => child.exitCode === null && child.signalCode === null;
  const server: RunningServer = {
    pid: child.pid,
    url: `http://127.0.0.1:${launch.port}`,
    stop: () => stopChild(child, exited, running),
    killNow: () => {
      if (running()) child.kill('SIGKILL');
    },
    exitReport: () =>
      running()
        ? undefined
        : `${launch.script} exited (${child.exitCode ?? child.signalCode}):\n` +
          readFileSync(launch.stderrFile, 'utf8').slice(-2000),
  };
  try {
    await waitUntilReady(`${server.url}${launch.readyPath}`, running);
  } catch (error) {
    await server.stop();
    const tail = readFileSync(launch.stderrFile, 'utf8').slice(-2000);
    throw new Error(`${launch.script} did not become ready: ${String(error)}\n${tail}`);
  }
  return server;
}

async function waitUntilReady(url: string, running: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!running()) throw new Error('the process exited');
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no 200 from ${url} within ${READY_TIMEOUT_MS} ms`);
}

async function stopChild(
  child: ChildProcess,
  exited: Promise<void>,
  running: () => boolean,
): Promise<void> {
  if (!running()) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
