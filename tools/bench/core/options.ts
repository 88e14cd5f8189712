import { parseArgs } from 'node:util';
import { isRuntimePreset, RUNTIME_PRESET_NAMES, type RuntimePreset } from './runtime.ts';

export const SERVER_NAMES = ['receiver', 'hand-written', 'bare'] as const;
export type ServerName = (typeof SERVER_NAMES)[number];

export type Pacing = 'smooth' | 'autocannon';

export interface BenchOptions {
  readonly rounds: number;
  /** Seconds of the throughput phase, per server per round. */
  readonly duration: number;
  /** Seconds of the fixed-rate latency phase, per server per round. */
  readonly latencyDuration: number;
  /** Seconds of unmeasured load per server before round 1 (JIT, pools, caches). */
  readonly warmup: number;
  readonly connections: number;
  /** Offered deliveries per second in the latency phase. */
  readonly rate: number;
  readonly pacing: Pacing;
  readonly only: readonly ServerName[];
  /** DATABASE_POOL_MAX of the receiver and the hand-written pool's size. */
  readonly poolMax: number;
  readonly adminDatabaseUrl: string;
  readonly writeDocs: boolean;
  /** Before each phase, wait up to this many seconds for other processes to go quiet. */
  readonly waitQuiet: number;
  /** Node flags and runtime environment, the same for every server. */
  readonly runtime: RuntimePreset;
  /** Measure even when the servers' runtimes differ (the report then fails the parity check). */
  readonly allowUnequalRuntime: boolean;
  /** Instead of the rounds: one throughput phase per server under `node --cpu-prof`. */
  readonly profile: boolean;
  /**
   * Instead of the three servers: the receiver on an empty database and on one already holding
   * this many deliveries, side by side (docs/benchmark.md, "On a database that holds N").
   */
  readonly stored: number | undefined;
  /** With --stored: seed the large database again even if an earlier run left one to reuse. */
  readonly reseed: boolean;
  /** With --stored: seconds of each idle window (after IDLE_SETTLE_SECONDS of settling). */
  readonly idleDuration: number;
}

export const DEFAULT_ADMIN_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

export const USAGE = `npm run bench -- [flags]
  --rounds=N             alternating rounds (default 3)
  --duration=S           throughput phase seconds per server per round (default 10)
  --latency-duration=S   fixed-rate phase seconds per server per round (default 5)
  --warmup=S             unmeasured warm-up seconds per server (default 3)
  --connections=N        concurrent connections (default 32)
  --rate=N               offered deliveries/s in the latency phase (default 1000)
  --pacing=MODE          smooth (default: evenly spaced sends) or autocannon (its overallRate)
  --only=A,B             servers: receiver,hand-written,bare (default all three)
  --pool-max=N           database pool size of receiver and hand-written (default 10)
  --database-url=URL     admin Postgres URL (default BENCH_DATABASE_URL or ${DEFAULT_ADMIN_DATABASE_URL})
  --wait-quiet=S         before each phase, wait up to S s for the machine to be idle (default 0)
  --runtime=NAME         Node flags and environment for every server: production (default:
                         those of npm run start:prod) or node-defaults
  --allow-unequal-runtime  measure even if the servers' runtimes differ (the report says FAIL)
  --profile              no rounds: warm up, then one throughput phase under node --cpu-prof,
                         and print where the CPU went (the receiver, or the servers of --only)
  --no-docs              do not rewrite docs/benchmark.md and README.md
  --stored=N             instead of the three servers: the receiver on an empty database and on
                         one already holding N deliveries (2m, 200k, 50000; up to 50m), side by
                         side: throughput, p99 at --rate, idle cost, bytes and WAL per delivery.
                         The large database is seeded once and kept for later runs
                         (benchcache_stored_<N>); about 15 minutes for 2m on 2 cores
  --reseed               with --stored: seed the large database again, even if one is kept
  --idle-duration=S      with --stored: seconds of each idle window (default 30)
Environment: BENCH_DATABASE_URL, BENCH_NODE_ARGS (Node flags for every server),
  BENCH_RECEIVER_ENV ("NAME=value ..." settings for the receiver).`;

export class UsageError extends Error {
  constructor(problem: string) {
    super(`${problem}\n\n${USAGE}`);
    this.name = 'UsageError';
  }
}

export function parseOptions(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): BenchOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        rounds: { type: 'string' },
        duration: { type: 'string' },
        'latency-duration': { type: 'string' },
        warmup: { type: 'string' },
        connections: { type: 'string' },
        rate: { type: 'string' },
        pacing: { type: 'string' },
        only: { type: 'string' },
        'pool-max': { type: 'string' },
        'database-url': { type: 'string' },
        'no-docs': { type: 'boolean' },
        'wait-quiet': { type: 'string' },
        runtime: { type: 'string' },
        'allow-unequal-runtime': { type: 'boolean' },
        profile: { type: 'boolean' },
        stored: { type: 'string' },
        reseed: { type: 'boolean' },
        'idle-duration': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const v = parsed.values;
  if (v.help) return 'help';
  const pacing = v.pacing ?? 'smooth';
  if (pacing !== 'smooth' && pacing !== 'autocannon') {
    throw new UsageError(`--pacing must be smooth or autocannon, not ${pacing}`);
  }
  const runtime = v.runtime ?? 'production';
  if (!isRuntimePreset(runtime)) {
    throw new UsageError(`--runtime must be ${RUNTIME_PRESET_NAMES.join(' or ')}, not ${runtime}`);
  }
  const stored = v.stored === undefined ? undefined : storedCount(v.stored);
  if (stored === undefined && (v.reseed || v['idle-duration'] !== undefined)) {
    throw new UsageError('--reseed and --idle-duration go with --stored');
  }
  if (stored !== undefined && (v.profile || v.only !== undefined)) {
    // The stored comparison is the receiver against itself; the other servers store elsewhere.
    throw new UsageError('--stored measures the receiver alone: no --only or --profile with it');
  }
  return {
    rounds: integer('rounds', v.rounds, 3, 1, 50),
    duration: integer('duration', v.duration, 10, 1, 600),
    latencyDuration: integer('latency-duration', v['latency-duration'], 5, 1, 600),
    warmup: integer('warmup', v.warmup, 3, 0, 600),
    connections: integer('connections', v.connections, 32, 1, 1000),
    rate: integer('rate', v.rate, 1000, 1, 100_000),
    pacing,
    // A profile looks at one server unless told otherwise, --stored at the receiver alone.
    only:
      (v.profile && v.only === undefined) || stored !== undefined
        ? ['receiver']
        : parseOnly(v.only),
    poolMax: integer('pool-max', v['pool-max'], 10, 1, 90),
    adminDatabaseUrl: v['database-url'] ?? env.BENCH_DATABASE_URL ?? DEFAULT_ADMIN_DATABASE_URL,
    writeDocs: !v['no-docs'],
    waitQuiet: integer('wait-quiet', v['wait-quiet'], 0, 0, 600),
    runtime,
    allowUnequalRuntime: v['allow-unequal-runtime'] ?? false,
    profile: v.profile ?? false,
    stored,
    reseed: v.reseed ?? false,
    idleDuration: integer('idle-duration', v['idle-duration'], 30, 1, 600),
  };
}

function storedCount(raw: string): number {
  const count = parseDeliveryCount(raw);
  if (count === undefined || count < 1 || count > MAX_STORED) {
    throw new UsageError(
      `--stored takes a number of deliveries from 1 to ${MAX_STORED.toLocaleString('en-US')}, ` +
        `such as 2m, 200k or 50000; not ${raw}`,
    );
  }
  return count;
}

function integer(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, not ${raw}`);
  }
  return value;
}

function parseOnly(raw: string | undefined): ServerName[] {
  if (raw === undefined) return [...SERVER_NAMES];
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(SERVER_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new UsageError(`--only takes ${SERVER_NAMES.join(', ')}; got ${raw}`);
  }
  // Keep the canonical order so rounds always alternate the same way.
  return SERVER_NAMES.filter((name) => names.includes(name));
}

/**
 * The most --stored accepts. Seeded Webhookids and TransactionIds stay in ranges the load's
 * deliveries never reach only up to here (stored/seed.ts); 50 million is also about 100 GB.
 */
const MAX_STORED = 50_000_000;

/**
 * A number of deliveries as people write it on a command line: `2m`, `200k`, `1.5m`, `50000`,
 * `2_000_000` or `2,000,000`. Undefined when it is not a whole number of deliveries.
 */
export function parseDeliveryCount(raw: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(raw.trim().replace(/[_,]/g, ''));
  if (!match?.[1]) return undefined;
  const scale = { '': 1, k: 1_000, m: 1_000_000 }[(match[2] ?? '').toLowerCase()] ?? 1;
  // 1.5m is exact in decimal but not in binary floating point: round what is meant to be whole.
  const value = Math.round(Number(match[1]) * scale * 1000) / 1000;
  return Number.isSafeInteger(value) ? value : undefined;
}
