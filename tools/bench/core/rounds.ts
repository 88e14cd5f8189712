import type { DeliveryPool } from './deliveries.ts';
import { waitForQuiet } from './machine.ts';
import { runLoad, type LoadPlan, type LoadResult } from './load.ts';
import type { BenchOptions, ServerName } from './options.ts';
import { postgresPids } from './postgres.ts';
import { cpuOfNewPids, otherCpu, postgresCpu } from './proc-stats.ts';
import type { BenchServer } from './servers.ts';

/**
 * The measuring loop. Rounds alternate the servers (receiver, hand-written, bare, receiver, ...)
 * so slow drift of the machine (Postgres checkpoints, page cache, CPU frequency, other tenants)
 * lands on every server alike instead of on whichever ran last. Each server runs a throughput
 * phase (closed loop at fixed concurrency, fixed duration) and a fixed-rate latency phase per
 * round.
 */

export type PhaseName = 'throughput' | 'latency';

export interface PhaseRecord {
  server: ServerName;
  round: number;
  phase: PhaseName;
  load: LoadResult;
  /** Rows the server's database holds after the phase (storing servers only). */
  rowsStored?: number;
  /** The phase ran out of pre-signed deliveries before its duration (still exact, just shorter). */
  endedEarly?: boolean;
  /** With --wait-quiet: how long the phase waited for the machine, and whether it got quiet. */
  quietWait?: { waitedSeconds: number; busyPercent: number; quiet: boolean };
}

export interface RoundsContext {
  options: BenchOptions;
  servers: readonly BenchServer[];
  pool: DeliveryPool;
  /** Between phases, outside any measurement: empty the tables, flush Postgres. */
  settle: (server: BenchServer) => Promise<void>;
  log: (line: string) => void;
}

/** The echo server stores nothing and may see a delivery twice: no cap but the duration. */
const UNCAPPED = 1_000_000_000;
/** Deliveries signed per expected one: a server faster than last time still has enough. */
const POOL_HEADROOM = 2;
/** Before anything was measured. */
const FIRST_GUESS_PER_SECOND = 2000;

interface Phase {
  name: PhaseName | 'warm-up';
  amount: number;
  durationSeconds?: number;
  rate?: LoadPlan['rate'];
}

export async function runRounds(ctx: RoundsContext): Promise<PhaseRecord[]> {
  const { options, servers } = ctx;
  const estimate = new Map<ServerName, number>();
  for (const server of servers) {
    const rate = await warmUp(ctx, server);
    if (rate) estimate.set(server.name, rate);
  }

  const records: PhaseRecord[] = [];
  for (let round = 1; round <= options.rounds; round += 1) {
    for (const server of servers) {
      const throughput = await throughputPhase(ctx, server, estimate.get(server.name));
      records.push({ ...throughput, round, phase: 'throughput' });
      ctx.log(describePhase(records.at(-1)));
      estimate.set(server.name, throughput.load.okPerSecond || (estimate.get(server.name) ?? 0));

      const latency = await latencyPhase(ctx, server);
      records.push({ ...latency, round, phase: 'latency' });
      ctx.log(describePhase(records.at(-1)));
    }
  }
  return records;
}

/** One closed-loop phase, with enough pre-signed deliveries for the rate last measured. */
export async function throughputPhase(
  ctx: RoundsContext,
  server: BenchServer,
  lastPerSecond: number | undefined,
): Promise<Omit<PhaseRecord, 'round' | 'phase'>> {
  const { options, pool } = ctx;
  const expected = (lastPerSecond ?? FIRST_GUESS_PER_SECOND) * options.duration;
  if (server.store) await pool.ensure(Math.ceil(expected * POOL_HEADROOM));
  return measure(ctx, server, {
    name: 'throughput',
    amount: server.store ? pool.size : UNCAPPED,
    durationSeconds: options.duration,
  });
}

/** One fixed-rate phase: rate x latency-duration deliveries, evenly paced. */
export async function latencyPhase(
  ctx: RoundsContext,
  server: BenchServer,
): Promise<Omit<PhaseRecord, 'round' | 'phase'>> {
  const { options, pool } = ctx;
  const amount = Math.max(options.connections, options.rate * options.latencyDuration);
  if (server.store) await pool.ensure(amount);
  return measure(ctx, server, {
    name: 'latency',
    amount,
    rate: { perSecond: options.rate, pacing: options.pacing },
  });
}

/**
 * Unmeasured load before round 1, in two parts: the second, one second long and on a warm
 * server, gives the rate that sizes round 1.
 */
export async function warmUp(ctx: RoundsContext, server: BenchServer): Promise<number | undefined> {
  const { warmup } = ctx.options;
  if (warmup === 0) return undefined;
  const parts = warmup > 1 ? [warmup - 1, 1] : [warmup];
  let rate = 0;
  for (const seconds of parts) {
    const { load } = await measure(ctx, server, {
      name: 'warm-up',
      amount: server.store ? ctx.pool.size : UNCAPPED,
      durationSeconds: seconds,
    });
    rate = load.okPerSecond;
  }
  ctx.log(`warm-up ${server.name}: ~${Math.round(rate)} deliveries/s`);
  return rate;
}

async function measure(
  ctx: RoundsContext,
  server: BenchServer,
  phase: Phase,
): Promise<Omit<PhaseRecord, 'round' | 'phase'>> {
  const { options, pool } = ctx;
  const database = server.store?.database;
  const quietWait = options.waitQuiet > 0 ? await waitForQuiet(options.waitQuiet) : undefined;
  const before = await postgresPids(options.adminDatabaseUrl, database);
  const load = await runLoad({
    url: server.process.url,
    pid: server.process.pid,
    postgresPids: before,
    pool,
    reuseDeliveries: !server.store,
    amount: phase.amount,
    connections: options.connections,
    ...(phase.durationSeconds !== undefined && { durationSeconds: phase.durationSeconds }),
    ...(phase.rate && { rate: phase.rate }),
  });
  // A pool reconnects after its idle timeout, autovacuum starts workers: processes born during
  // the phase count in full.
  const after = await postgresPids(options.adminDatabaseUrl, database);
  load.cpu.postgresBackends += cpuOfNewPids(before.backends, after.backends);
  load.cpu.postgresBackground += cpuOfNewPids(before.background, after.background);
  const exit = server.process.exitReport();
  if (exit) throw new Error(`${server.name} stopped during the ${phase.name} phase: ${exit}`);

  const record: Omit<PhaseRecord, 'round' | 'phase'> = {
    server: server.name,
    load,
    ...(quietWait && { quietWait }),
  };
  if (server.store) {
    record.rowsStored = await server.store.probe.count(server.store.table);
    if (phase.durationSeconds !== undefined && load.sent >= phase.amount) record.endedEarly = true;
  }
  await ctx.settle(server);
  return record;
}

/** One line per measured phase, printed as the run goes. */
export function describePhase(
  record: PhaseRecord | undefined,
  label = record?.server ?? '',
): string {
  if (!record) return '';
  const { load } = record;
  const failures = load.non2xx + load.errors + load.timeouts;
  const answered200 = load.statusCounts['200'] ?? 0;
  const stored =
    record.rowsStored === undefined
      ? ''
      : `, rows ${record.rowsStored}${record.rowsStored === answered200 ? ' = 200s' : ` != 200s ${answered200}`}`;
  const head = `round ${record.round} ${label.padEnd(12)} ${record.phase.padEnd(10)}`;
  const { cpu } = load;
  const core = (seconds: number) => `${Math.round((100 * seconds) / load.elapsedSeconds)}%`;
  const other = otherCpu(cpu);
  return (
    `${head} ${Math.round(load.okPerSecond)}/s in ${load.elapsedSeconds.toFixed(1)} s` +
    `${record.endedEarly ? ' (pre-signed deliveries ran out)' : ''}${describeWait(record)}, ` +
    `p50 ${load.latencyMs.p50.toFixed(2)} ms, p99 ${load.latencyMs.p99.toFixed(2)} ms, ` +
    `failures ${failures}${stored}; CPU server ${core(cpu.server)} pg ${core(postgresCpu(cpu))} ` +
    `generator ${core(cpu.generator)} other ${core(other)}`
  );
}

function describeWait({ quietWait }: PhaseRecord): string {
  if (!quietWait) return '';
  const waited = `${quietWait.waitedSeconds.toFixed(1)} s`;
  return quietWait.quiet
    ? ` (after ${waited} waiting for quiet)`
    : ` (machine still ${Math.round(quietWait.busyPercent)}% busy after ${waited})`;
}
