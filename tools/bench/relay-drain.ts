import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { Registry } from 'prom-client';
import { loadConfig } from '../../src/cli/config.ts';
import { startFeed } from '../../src/feed/app.ts';
import { createLogger } from '../../src/lib/logger.ts';
import type { CommandDescription } from '../../src/lib/command-line/command-description.ts';
import { UsageError } from '../../src/lib/command-line/errors.ts';
import { wholeNumber } from '../../src/lib/command-line/whole-number.ts';
import { databaseUrl, withClient } from '../common/postgres.ts';
import { runTool } from '../common/run-tool.ts';
import { readCpuSeconds } from '../common/proc-stats.ts';
import { startFeedSink } from './feed-sink.ts';
import { DEFAULT_ADMIN_DATABASE_URL } from './options.ts';
import { createBenchDatabase, dropBenchDatabase } from './store.ts';

/**
 * `npm run bench:relay`: how fast the push side drains a backlog (docs/feed.md, "Relay
 * throughput"). Per run: a fresh database migrated as `npm run migrate` does, seeded with
 * `--events` stored payments and their numbered feed events (seed-2m.sql), `k` http endpoints
 * (every type, from position 0) POSTing to a sink that answers 204 at once; then the feed
 * started as `serve` starts it (startFeed, its settings from the environment: FEED_* apply),
 * timed until every endpoint has every event sent. Statements are counted on every pg client of
 * this process (the probe's own subtracted). Numbers on stdout, progress on stderr.
 *
 *   npm run bench:relay -- --events 5000 --endpoints 1,4 --rounds 2
 */

const run = promisify(execFile);
const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));
const log = (line: string) => console.error(line);

/** The run's settings, from the command line (runTool, at the end). */
const settings = {
  events: 5000,
  endpointCounts: [1, 4],
  rounds: 1,
  timeLimitMs: 300_000,
  byStatement: false,
};
const adminUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_ADMIN_DATABASE_URL;

/**
 * Every query of every pg client in this process, counted, with its time to the answer, by the
 * start of its text (measurement only: the feed's pool is made inside startFeed).
 */
const statements = new Map<string, { count: number; ms: number }>();
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { text: string };
  const text = (typeof first === 'string' ? first : first.text).replace(/\s+/g, ' ').trim();
  const kind = text.slice(0, 60);
  const startedAt = performance.now();
  const done = () => {
    const entry = statements.get(kind) ?? { count: 0, ms: 0 };
    entry.count += 1;
    entry.ms += performance.now() - startedAt;
    statements.set(kind, entry);
  };
  const answer = (query as (...a: unknown[]) => unknown).apply(this, args);
  if (answer instanceof Promise) answer.then(done, done);
  return answer;
} as typeof query;

const PROBE = "SELECT count(*)::int AS sent FROM feed_endpoint_events WHERE state = 'sent'";

/** CPU seconds of the Postgres backends serving `url` but `exceptPid` (Postgres on this machine). */
async function backendCpuSeconds(probe: pg.Client, exceptPid: number): Promise<number> {
  const { rows } = await probe.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> $1',
    [exceptPid],
  );
  return rows.reduce((sum, { pid }) => {
    try {
      return sum + readCpuSeconds(pid);
    } catch {
      return sum; // gone meanwhile
    }
  }, 0);
}

async function prepare(endpoints: number, sinkUrl: string): Promise<{ name: string; url: string }> {
  const name = await createBenchDatabase(adminUrl, 'relay_drain');
  const url = databaseUrl(adminUrl, name);
  await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'migrate'], {
    cwd: PROJECT_DIR,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DATABASE_URL: url, LOG_LEVEL: 'warn' },
  });
  await run(
    'psql',
    [url, '-q', '-v', `deliveries=${settings.events}`, '-f', 'tools/bench/seed-2m.sql'],
    {
      cwd: PROJECT_DIR,
    },
  );
  await withClient(url, async (client) => {
    for (let n = 1; n <= endpoints; n += 1) {
      await client.query(
        `INSERT INTO feed_endpoints (name, kind, target, types, secrets, fanned_through)
         VALUES ($1, 'http', $2, '{*}', ARRAY[$3], 0)`,
        [`drain-${n}`, sinkUrl, `whsec_${randomBytes(32).toString('base64')}`],
      );
    }
    await client.query('VACUUM ANALYZE');
  });
  return { name, url };
}

async function drain(endpoints: number) {
  const sink = await startFeedSink();
  const database = await prepare(endpoints, sink.url);
  const probe = new pg.Client({ connectionString: database.url });
  await probe.connect();
  const config = loadConfig({
    WEBHOOK_SECRETS: 'relay-drain',
    ...process.env,
    DATABASE_URL: database.url,
  });
  const expected = settings.events * endpoints;
  const { rows: self } = await probe.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  statements.clear();
  const cpuAtStart = process.cpuUsage();
  const startedAt = performance.now();
  const feed = await startFeed({
    config: config.feed,
    databaseUrl: database.url,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    timeouts: config.server,
    logger: createLogger('warn'),
    registry: new Registry(),
  });
  try {
    for (;;) {
      // The sink's count first (no cost to the database), then the rows to confirm.
      if (sink.received() >= expected) {
        const { rows } = await probe.query<{ sent: number }>(PROBE);
        if ((rows[0]?.sent ?? 0) >= expected) break;
      }
      if (performance.now() - startedAt > settings.timeLimitMs)
        throw new Error('time limit passed');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const seconds = (performance.now() - startedAt) / 1000;
    const postgresCpu = await backendCpuSeconds(probe, self[0]?.pid ?? 0);
    const cpu = process.cpuUsage(cpuAtStart);
    const posts = sink.received();
    const feedStatements = [...statements]
      .filter(([kind]) => !PROBE.startsWith(kind) && !kind.startsWith('SELECT pid'))
      .reduce((sum, [, { count }]) => sum + count, 0);
    return {
      result: {
        endpoints,
        events: settings.events,
        seconds: Number(seconds.toFixed(2)),
        perEndpoint: Math.round(settings.events / seconds),
        postsPerSecond: Math.round(posts / seconds),
        posts,
        statementsPerPost: Number((feedStatements / posts).toFixed(2)),
        nodeCpuMsPerPost: Number(((cpu.user + cpu.system) / 1000 / posts).toFixed(3)),
        postgresCpuMsPerPost: Number(((postgresCpu * 1000) / posts).toFixed(3)),
        loadAverage: Number((loadavg()[0] ?? 0).toFixed(1)),
      },
      byStatement: [...statements]
        .sort((a, b) => b[1].ms - a[1].ms)
        .slice(0, 10)
        .map(([kind, { count, ms }]) => `${count} x ${(ms / count).toFixed(2)} ms  ${kind}`),
    };
  } finally {
    await feed.stop();
    await probe.end();
    await sink.close();
    await dropBenchDatabase(adminUrl, database.name);
  }
}

async function drainAll(): Promise<void> {
  for (let round = 1; round <= settings.rounds; round += 1) {
    for (const endpoints of settings.endpointCounts) {
      log(`round ${round}: ${settings.events} events, ${endpoints} endpoint(s)`);
      const { result, byStatement } = await drain(endpoints);
      console.log(JSON.stringify(result));
      if (settings.byStatement) byStatement.forEach((line) => console.log(`  ${line}`));
    }
  }
}

const HELP = `Usage: npm run bench:relay -- [options]

How fast the feed's relays drain a backlog (docs/feed.md, "Relay throughput"): per run a fresh
database with --events payments and their feed events, k endpoints POSTing to a sink that
answers 204, the feed started as serve starts it (FEED_* settings from the environment), timed
until every endpoint has every event. One JSON line per run on stdout, progress on stderr.

Options:
  --events <n>          payments (and feed events) seeded (default 5000)
  --endpoints <list>    endpoint counts to run, comma-separated (default 1,4)
  --rounds <n>          times to run the list (default 1)
  --time-limit <s>      give up on a run after this long (default 300)
  --by-statement        also the ten costliest statement kinds of each run
  -h, --help            this text

Environment: BENCH_DATABASE_URL (default ${DEFAULT_ADMIN_DATABASE_URL}).`;

function endpointList(value: string, flag: string): number[] {
  const counts = value.split(',').map((part) => wholeNumber(16)(part.trim(), flag));
  if (counts.length === 0) throw new UsageError(`${flag} needs endpoint counts, e.g. 1,4`);
  return counts;
}

const command: CommandDescription = {
  name: 'bench:relay',
  help: HELP,
  options: [
    { flags: '--events <n>', parse: wholeNumber(2_000_000) },
    { flags: '--endpoints <list>', parse: endpointList },
    { flags: '--rounds <n>', parse: wholeNumber(50) },
    { flags: '--time-limit <s>', parse: wholeNumber(3600) },
    { flags: '--by-statement' },
  ],
  run: async ({ options }) => {
    if (options.events !== undefined) settings.events = options.events as number;
    if (options.endpoints !== undefined) settings.endpointCounts = options.endpoints as number[];
    if (options.rounds !== undefined) settings.rounds = options.rounds as number;
    if (options.timeLimit !== undefined)
      settings.timeLimitMs = (options.timeLimit as number) * 1000;
    settings.byStatement = options.byStatement === true;
    await drainAll();
  },
};

await runTool(command, 'bench:relay failed');
