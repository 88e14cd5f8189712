import { otherCpu, postgresCpu, type CpuUse } from './proc-stats.ts';
import type { PhaseRecord } from './rounds.ts';

/**
 * What both kinds of run make of their measured phases: medians over rounds, failures, rows
 * against 200s, CPU per delivery; and the checks their reports end with.
 */

export interface Check {
  label: string;
  target: string;
  actual: string;
  status: 'pass' | 'fail' | 'n/a';
}

/**
 * Above this median share of a core used by other processes during the measured phases, the box
 * was shared and the run is reported as noisy.
 */
export const NOISY_OTHER_PERCENT = 25;

export interface Spread {
  median: number;
  min: number;
  max: number;
  /** One per round, in round order. */
  rounds: number[];
}

/**
 * What one delivery costs in CPU, split by who spent it: the server process, the Postgres
 * backends of its database, and Postgres's background processes (WAL writer, checkpointer, ...).
 * Pooled over phases (all their CPU over all their 200s), so the parts add up to the total.
 * It moves much less than deliveries/s when other work shares the machine.
 */
export interface CpuPerDelivery {
  /** Milliseconds of CPU per delivery answered 200. */
  server: number;
  postgresBackends: number;
  postgresBackground: number;
  /** Backends plus background. */
  postgres: number;
  /** Server plus Postgres. */
  total: number;
  /** The 200s it is divided by (0: nothing answered, every figure 0). */
  deliveries: number;
}

export interface PhasesSummary {
  /** 2xx per second at fixed concurrency, over the throughput phases. */
  throughput: Spread;
  /** At the fixed offered rate: medians over rounds of each round's percentiles. */
  latency: { p50: number; p99: number; max: number; achievedPerSecond: number };
  failures: { non2xx: number; errors: number; timeouts: number; reusedDeliveries: number };
  /** Over every measured phase. */
  answered200: number;
  rowsStored: number | undefined;
  /** Every measured phase stored exactly as many rows as it answered 200 (storing servers). */
  rowsMatch: boolean | undefined;
  /** In the throughput phases (full load) and the fixed-rate phases. */
  cpuMsPerDelivery: { throughput: CpuPerDelivery; atRate: CpuPerDelivery };
}

export function summarisePhases(records: readonly PhaseRecord[]): PhasesSummary {
  const throughput = records.filter((record) => record.phase === 'throughput');
  const latency = records.filter((record) => record.phase === 'latency');
  const sum = (pick: (record: PhaseRecord) => number) =>
    records.reduce((total, record) => total + pick(record), 0);
  const storing = records.some((record) => record.rowsStored !== undefined);
  const perDelivery = (phases: readonly PhaseRecord[]) =>
    cpuPerDelivery(phases.map((r) => ({ cpu: r.load.cpu, answered200: answered200(r) })));
  return {
    throughput: spread(throughput.map((record) => record.load.okPerSecond)),
    latency: {
      p50: median(latency.map((record) => record.load.latencyMs.p50)),
      p99: median(latency.map((record) => record.load.latencyMs.p99)),
      max: median(latency.map((record) => record.load.latencyMs.max)),
      achievedPerSecond: median(latency.map((record) => record.load.okPerSecond)),
    },
    failures: {
      non2xx: sum((record) => record.load.non2xx),
      errors: sum((record) => record.load.errors),
      timeouts: sum((record) => record.load.timeouts),
      reusedDeliveries: sum((record) => record.load.reusedDeliveries),
    },
    answered200: sum(answered200),
    rowsStored: storing ? sum((record) => record.rowsStored ?? 0) : undefined,
    rowsMatch: storing
      ? records.every((record) => record.rowsStored === answered200(record))
      : undefined,
    cpuMsPerDelivery: { throughput: perDelivery(throughput), atRate: perDelivery(latency) },
  };
}

export function answered200({ load }: PhaseRecord): number {
  return load.statusCounts['200'] ?? 0;
}

/** Everything that fails the errors check: non-2xx, socket errors, timeouts, re-sent deliveries. */
export function failureCount({ failures: f }: Pick<PhasesSummary, 'failures'>): number {
  return f.non2xx + f.errors + f.timeouts + f.reusedDeliveries;
}

/** CPU seconds over a phase's elapsed time, in percent of one core. */
export function percentOfCore(seconds: number, elapsedSeconds: number): number {
  return (100 * seconds) / Math.max(elapsedSeconds, 1e-9);
}

/** Other people's work during a phase, in percent of one core. */
export function otherPercent({ load }: PhaseRecord): number {
  return percentOfCore(otherCpu(load.cpu), load.elapsedSeconds);
}

export function cpuPerDelivery(
  phases: readonly { cpu: CpuUse; answered200: number }[],
): CpuPerDelivery {
  const deliveries = phases.reduce((total, phase) => total + phase.answered200, 0);
  const perDelivery = (pick: (cpu: CpuUse) => number) =>
    deliveries === 0
      ? 0
      : (1000 * phases.reduce((total, phase) => total + pick(phase.cpu), 0)) / deliveries;
  const server = perDelivery((cpu) => cpu.server);
  const postgres = perDelivery(postgresCpu);
  return {
    server,
    postgresBackends: perDelivery((cpu) => cpu.postgresBackends),
    postgresBackground: perDelivery((cpu) => cpu.postgresBackground),
    postgres,
    total: server + postgres,
    deliveries,
  };
}

export function spread(values: number[]): Spread {
  return {
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
    rounds: values,
  };
}

/** Median of unsorted values (mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
