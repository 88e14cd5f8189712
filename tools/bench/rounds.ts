import { setTimeout as delay } from 'node:timers/promises';
import { readMemory } from '../common/proc-stats.ts';
import type { DeliveryPool } from './deliveries.ts';
import type { BenchServer } from './launch.ts';
import { runLoad, type LoadResult } from './load.ts';
import type { BenchOptions, ServerName } from './options.ts';

/**
 * The measuring loop. Rounds alternate the servers (receiver, hand-written, bare, receiver, ...)
 * so slow drift of the machine (Postgres checkpoints, page cache, CPU frequency, other tenants)
 * lands on every server alike instead of on whichever ran last. Each round sends each server as
 * many deliveries as it answered in --duration seconds last time, all answered before the round
 * ends; between rounds, outside the measurement, the rows are counted, the tables emptied and
 * Postgres checkpointed.
 */

export interface RoundRecord {
  server: ServerName;
  round: number;
  load: LoadResult;
  /** Rows the round added to the server's database (storing servers only). */
  rowsStored?: number;
  /** VmHWM after the round: the most the process has held resident so far. */
  peakRssBytes: number;
}

export interface RoundsContext {
  options: Pick<BenchOptions, 'rounds' | 'duration' | 'connections'>;
  servers: readonly BenchServer[];
  pool: DeliveryPool;
  log: (line: string) => void;
}

/** Unmeasured seconds per server before round 1: the JIT compiles, the pools fill. */
const WARMUP_SECONDS = 3;

export async function runRounds(ctx: RoundsContext): Promise<RoundRecord[]> {
  const { options, pool } = ctx;
  const estimate = new Map<ServerName, number>();
  // Where a kept database's next round starts in the pool: it must never see a delivery twice.
  const cursor = new Map<ServerName, number>();
  for (const server of ctx.servers) {
    // Two parts, each answered in full (no request still being written when the tables are
    // emptied): a short one to learn the rate, then WARMUP_SECONDS at that rate.
    let sent = 0;
    let rate = 0;
    for (const amount of [options.connections * 10, undefined]) {
      const warm = await runLoad({
        url: server.process.url,
        pid: server.process.pid,
        pool,
        first: sent,
        reuseDeliveries: true,
        amount: amount ?? Math.max(options.connections, Math.round(rate * WARMUP_SECONDS)),
        connections: options.connections,
      });
      sent += warm.sent;
      rate = warm.okPerSecond;
    }
    ctx.log(`warm-up ${server.name}: ~${Math.round(rate)} deliveries/s`);
    estimate.set(server.name, rate);
    cursor.set(server.name, sent);
    await settle(server);
  }

  const records: RoundRecord[] = [];
  for (let round = 1; round <= options.rounds; round += 1) {
    for (const server of ctx.servers) {
      const { store } = server;
      const amount = Math.max(
        options.connections,
        Math.round((estimate.get(server.name) ?? 0) * options.duration),
      );
      const first = store?.kept ? (cursor.get(server.name) ?? 0) : 0;
      if (store) await pool.ensure(first + amount);
      const rowsBefore = store?.kept ? await store.probe.count(store.table) : 0;
      const load = await runLoad({
        url: server.process.url,
        pid: server.process.pid,
        pool,
        first,
        reuseDeliveries: !store,
        amount,
        connections: options.connections,
      });
      const exit = server.process.exitReport();
      if (exit) throw new Error(`${server.name} stopped during round ${round}: ${exit}`);
      const record: RoundRecord = {
        server: server.name,
        round,
        load,
        ...(store && { rowsStored: (await store.probe.count(store.table)) - rowsBefore }),
        peakRssBytes: readMemory(server.process.pid).peakRssBytes,
      };
      records.push(record);
      ctx.log(describeRound(record));
      if (load.okPerSecond > 0) estimate.set(server.name, load.okPerSecond);
      cursor.set(server.name, first + load.sent);
      await settle(server);
    }
  }
  return records;
}

/** Between rounds: an empty database (a kept one as it is), nothing left for Postgres to flush. */
async function settle({ store }: BenchServer): Promise<void> {
  if (store?.kept) await store.probe.checkpoint();
  else if (store) await store.probe.truncateAll();
  await delay(250);
}

/** One line per round and server, on stderr as the run goes. */
function describeRound(record: RoundRecord): string {
  const { load } = record;
  const failures = load.non2xx + load.errors + load.timeouts + load.reusedDeliveries;
  const rows =
    record.rowsStored === undefined
      ? ''
      : `, rows ${record.rowsStored}${record.rowsStored === answered200(load) ? ' = 200s' : ` != 200s ${answered200(load)}`}`;
  return (
    `round ${record.round} ${record.server.padEnd(12)} ${Math.round(load.okPerSecond)}/s in ` +
    `${load.elapsedSeconds.toFixed(1)} s, p50 ${load.latencyMs.p50.toFixed(2)} ms, ` +
    `p99 ${load.latencyMs.p99.toFixed(2)} ms, CPU ${cpuMsPerDelivery(load).toFixed(3)} ms/delivery, ` +
    `peak RSS ${(record.peakRssBytes / 1e6).toFixed(1)} MB, failures ${failures}${rows}`
  );
}

/** Milliseconds of the server process's CPU per delivery answered 2xx; 0 when none was. */
export function cpuMsPerDelivery(load: Pick<LoadResult, 'serverCpuSeconds' | 'ok'>): number {
  return load.ok === 0 ? 0 : (1000 * load.serverCpuSeconds) / load.ok;
}

export function answered200(load: Pick<LoadResult, 'statusCounts'>): number {
  return load.statusCounts['200'] ?? 0;
}
