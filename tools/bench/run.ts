import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { abandonable } from '../common/abandonable.ts';
import { databaseUrl, withClient } from '../common/postgres.ts';
import { runTool } from '../common/run-tool.ts';
import { createCleanup, type Cleanup } from './cleanup.ts';
import { startFeedSink } from './feed-sink.ts';
import { createDeliveryPool, FIRST_WEBHOOK_ID } from './deliveries.ts';
import { buildServers, launchServer, type BenchServer } from './launch.ts';
import { benchCommand, SERVER_NAMES, type BenchOptions } from './options.ts';
import { renderReport, type RunFacts } from './report.ts';
import { runRounds } from './rounds.ts';
import { describeRuntime, productionRuntime } from './runtime.ts';
import { listBenchDatabases, nextDeliveryNumber } from './store.ts';
import { summarise } from './summary.ts';

/**
 * `npm run bench`: the receiver against a hand-written receiver and a bare Express echo, on the
 * same machine and the same Postgres, in alternating rounds (docs/benchmark.md). Progress on
 * stderr; the report (or with --json everything measured) on stdout. Exit codes: 0 measured, 1 a
 * failure, 2 bad usage, 130 / 143 stopped by SIGINT / SIGTERM (tools/common/run-tool.ts).
 */

const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));
const log = (line: string) => console.error(line);

/** Measures; everything started is undone at the end, on an error, or on SIGINT / SIGTERM. */
async function bench(options: BenchOptions): Promise<void> {
  const cleanup = createCleanup(log);
  process.once('exit', () => cleanup.runNow());
  await abandonable(() => measure(options, cleanup), {
    cleanUp: () => cleanup.run(),
    announce: (signal) => log(`\n${signal}: stopping servers and dropping databases`),
  });
}

async function measure(options: BenchOptions, cleanup: Cleanup): Promise<void> {
  const benchDir = join(PROJECT_DIR, '.data', 'bench');
  const logDir = join(benchDir, 'logs');
  const profileDir = join(benchDir, 'profile');
  mkdirSync(logDir, { recursive: true });
  try {
    log('building: the servers run as compiled JavaScript, as in production');
    buildServers(PROJECT_DIR, !options.profile);
    const startedAt = new Date();
    const loadAtStart = loadavg()[0] ?? 0;
    const leftovers = await listBenchDatabases(options.adminDatabaseUrl);
    if (leftovers.length > 0) {
      log(`note: bench_* databases a killed run left, or another run's: ${leftovers.join(', ')}`);
    }
    const keptUrl = options.database && databaseUrl(options.adminDatabaseUrl, options.database);
    const firstIndex = keptUrl ? await nextDeliveryNumber(keptUrl, FIRST_WEBHOOK_ID) : 0;

    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const secret = `Basic ${randomBytes(24).toString('base64')}`;
    const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const pool = createDeliveryPool({ privateKeyPem, secret, firstIndex });
    const runtime = productionRuntime(PROJECT_DIR);
    if (options.profile) {
      rmSync(profileDir, { recursive: true, force: true });
      mkdirSync(profileDir, { recursive: true });
    }

    // The servers start and the first deliveries are signed at once: nothing is measured yet.
    const names = options.profile ? (['receiver'] as const) : SERVER_NAMES;
    const signingStarted = performance.now();
    const [servers] = await Promise.all([
      launchAll(names, {
        projectDir: PROJECT_DIR,
        logDir,
        adminUrl: options.adminDatabaseUrl,
        runtime,
        ...(options.profile && { extraNodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] }),
        publicKey,
        secret,
        cleanup,
        ...(options.database && { database: options.database }),
      }),
      pool.ensure(options.connections * 200).then(() => {
        log(
          `signed ${pool.size} deliveries in ${Math.round(performance.now() - signingStarted)} ms`,
        );
      }),
    ]);
    if (options.feedEndpoints > 0) {
      const sink = await startFeedSink();
      cleanup.add('feed sink', async () => {
        log(`feed sink: ${sink.received()} POSTs received in all`);
        await sink.close();
      });
      const receiver = servers.find((server) => server.name === 'receiver');
      await receiver?.store?.probe.addFeedEndpoints(options.feedEndpoints, sink.url);
      log(`feed: ${options.feedEndpoints} endpoint(s) POSTing every event to ${sink.url}`);
    }
    const rounds = options.profile ? { ...options, rounds: 1 } : options;
    const records = await runRounds({ options: rounds, servers, pool, log });
    const summary = summarise(
      records,
      Object.fromEntries(servers.map((s) => [s.name, s.startRssBytes])),
    );
    // Stopping the servers makes a profiled receiver write its profile.
    await cleanup.run();

    const facts: RunFacts = {
      startedAt,
      feedEndpoints: options.feedEndpoints,
      commit: describeCommit(),
      command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
      rounds: rounds.rounds,
      duration: options.duration,
      connections: options.connections,
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
        node: process.version,
        loadAverage: [loadAtStart, loadavg()[0] ?? 0],
      },
      postgres: await describePostgres(options),
      runtime: describeRuntime(runtime),
      profiled: options.profile,
      ...(options.database && {
        keptDatabase: { name: options.database, deliveries: firstIndex },
      }),
    };
    console.log(
      options.json
        ? JSON.stringify({ ...facts, runtime, records, summary }, null, 2)
        : renderReport(facts, summary),
    );
    if (options.profile) {
      const files = readdirSync(profileDir).filter((file) => file.endsWith('.cpuprofile'));
      log(
        `profile of the receiver: ${files.map((file) => join(profileDir, file)).join(', ')} ` +
          '(start-up, warm-up and the round; open it in Chrome DevTools or speedscope)',
      );
    }
  } finally {
    await cleanup.run();
  }
}

async function launchAll(
  names: readonly BenchServer['name'][],
  ctx: Parameters<typeof launchServer>[1],
): Promise<BenchServer[]> {
  const launches = await Promise.allSettled(names.map((name) => launchServer(name, ctx)));
  return launches.map((launch) => {
    if (launch.status === 'rejected') throw launch.reason;
    const { name, process } = launch.value;
    log(`started ${name} (pid ${process.pid}) at ${process.url}`);
    return launch.value;
  });
}

/** The receiver's commit, with `+` when src/ or migrations/ have uncommitted changes. */
function describeCommit(): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: PROJECT_DIR, encoding: 'utf8', stdio: 'pipe' }).trim();
  try {
    const dirty = git('status', '--porcelain', '--', 'src', 'migrations') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? '+' : ''}`;
  } catch {
    return 'unknown';
  }
}

/** Read, never changed: these decide what a commit costs. */
async function describePostgres(options: BenchOptions): Promise<string> {
  return withClient(options.adminDatabaseUrl, async (client) => {
    const result = await client.query<{ version: string; sync: string; fsync: string }>(
      `SELECT current_setting('server_version') AS version,
              current_setting('synchronous_commit') AS sync, current_setting('fsync') AS fsync`,
    );
    const row = result.rows[0];
    return `Postgres ${row?.version} (synchronous_commit=${row?.sync}, fsync=${row?.fsync})`;
  });
}

await runTool(benchCommand(process.env, bench), 'bench failed');
