import type { BenchOptions, ServerName } from './options.ts';
import type { PhaseRecord } from './rounds.ts';
import { median } from './stats.ts';

/** Medians over rounds, the ratios between servers, and the targets from the issue. */

export interface MemoryRecord {
  /** Resident set right after the server answered ready. */
  startRssBytes: number;
  /** VmHWM at the end of the run: the most the process ever held resident. */
  peakRssBytes: number;
}

export interface ServerSummary {
  server: ServerName;
  /** 2xx per second at fixed concurrency: median, min, max over rounds, and each round. */
  throughput: { median: number; min: number; max: number; rounds: number[] };
  /** At the fixed offered rate: medians over rounds of each round's percentiles. */
  latency: { p50: number; p99: number; max: number; achievedPerSecond: number };
  failures: { non2xx: number; errors: number; timeouts: number; reusedDeliveries: number };
  /** Over every measured phase. */
  answered200: number;
  rowsStored: number | undefined;
  /** Every measured phase stored exactly as many rows as it answered 200 (storing servers). */
  rowsMatch: boolean | undefined;
  memory: MemoryRecord | undefined;
  /**
   * Median CPU use in the throughput phases, percent of one core: the server, its Postgres
   * processes, the load generator, and everything else on the machine (other people's work).
   */
  cpuPercent: { server: number; postgres: number; generator: number; other: number };
  /**
   * CPU milliseconds per delivery answered 200 in the throughput phases (median): what a delivery
   * costs the server and Postgres. Less sensitive to a shared machine than deliveries/s.
   */
  cpuMsPerDelivery: { server: number; postgres: number };
}

export interface Check {
  label: string;
  target: string;
  actual: string;
  status: 'pass' | 'fail' | 'n/a';
}

export interface Summary {
  servers: ServerSummary[];
  ratios: { receiverOverHandWritten: number | undefined; receiverOverBare: number | undefined };
  checks: Check[];
  passed: boolean;
  /**
   * CPU other processes used during the measured phases (median over phases, percent of one
   * core). Above NOISY_OTHER_PERCENT the box was shared and the ratios are unreliable.
   */
  interference: { medianOtherPercent: number; noisy: boolean };
}

export const NOISY_OTHER_PERCENT = 25;

export const TARGETS = {
  overHandWritten: 1.2,
  overBare: 0.7,
  p99Ms: 15,
  peakRssBytes: 150e6,
} as const;

export function summarise(
  options: Pick<BenchOptions, 'rate' | 'only'>,
  records: readonly PhaseRecord[],
  memory: Partial<Record<ServerName, MemoryRecord>>,
): Summary {
  const servers = options.only.map((name) =>
    summariseServer(
      name,
      records.filter((record) => record.server === name),
      memory[name],
    ),
  );
  const find = (name: ServerName) => servers.find((server) => server.server === name);
  const receiver = find('receiver');
  const ratio = (other: ServerSummary | undefined) =>
    receiver && other && other.throughput.median > 0
      ? receiver.throughput.median / other.throughput.median
      : undefined;
  const ratios = {
    receiverOverHandWritten: ratio(find('hand-written')),
    receiverOverBare: ratio(find('bare')),
  };
  const checks = buildChecks(options.rate, receiver, servers, ratios);
  const medianOtherPercent = median(records.map(otherPercent));
  return {
    servers,
    ratios,
    checks,
    passed: checks.every((check) => check.status !== 'fail'),
    interference: {
      medianOtherPercent,
      noisy: medianOtherPercent > NOISY_OTHER_PERCENT,
    },
  };
}

function otherPercent({ load }: PhaseRecord): number {
  const { cpu } = load;
  const other = cpu.machine - cpu.server - cpu.postgres - cpu.generator;
  return (100 * Math.max(0, other)) / Math.max(load.elapsedSeconds, 1e-9);
}

function summariseServer(
  server: ServerName,
  records: readonly PhaseRecord[],
  memory: MemoryRecord | undefined,
): ServerSummary {
  const throughput = records.filter((record) => record.phase === 'throughput');
  const latency = records.filter((record) => record.phase === 'latency');
  const rates = throughput.map((record) => record.load.okPerSecond);
  const sum = (pick: (record: PhaseRecord) => number) =>
    records.reduce((total, record) => total + pick(record), 0);
  const storing = records.some((record) => record.rowsStored !== undefined);
  const perDelivery = (pick: (record: PhaseRecord) => number) =>
    median(throughput.map((r) => (1000 * pick(r)) / Math.max(r.load.statusCounts['200'] ?? 0, 1)));
  const percentOfCore = (pick: (record: PhaseRecord) => number) =>
    median(throughput.map((r) => (100 * pick(r)) / Math.max(r.load.elapsedSeconds, 1e-9)));
  return {
    server,
    throughput: {
      median: median(rates),
      min: Math.min(...rates),
      max: Math.max(...rates),
      rounds: rates,
    },
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
    answered200: sum((record) => record.load.statusCounts['200'] ?? 0),
    rowsStored: storing ? sum((record) => record.rowsStored ?? 0) : undefined,
    rowsMatch: storing
      ? records.every((record) => record.rowsStored === (record.load.statusCounts['200'] ?? 0))
      : undefined,
    memory,
    cpuPercent: {
      server: percentOfCore((record) => record.load.cpu.server),
      postgres: percentOfCore((record) => record.load.cpu.postgres),
      generator: percentOfCore((record) => record.load.cpu.generator),
      other: median(throughput.map(otherPercent)),
    },
    cpuMsPerDelivery: {
      server: perDelivery((record) => record.load.cpu.server),
      postgres: perDelivery((record) => record.load.cpu.postgres),
    },
  };
}

function buildChecks(
  rate: number,
  receiver: ServerSummary | undefined,
  servers: readonly ServerSummary[],
  ratios: Summary['ratios'],
): Check[] {
  const atLeast = (label: string, target: number, actual: number | undefined): Check => ({
    label,
    target: `>= ${target.toFixed(2)}x`,
    actual: actual === undefined ? 'not measured' : `${actual.toFixed(2)}x`,
    status: actual === undefined ? 'n/a' : actual >= target ? 'pass' : 'fail',
  });
  const p99 = receiver?.latency.p99;
  const peak = receiver?.memory?.peakRssBytes;
  const failures = servers.map((s) => ({
    server: s.server,
    count:
      s.failures.non2xx + s.failures.errors + s.failures.timeouts + s.failures.reusedDeliveries,
  }));
  const failed = failures.filter((f) => f.count > 0);
  const storing = servers.filter((s) => s.rowsMatch !== undefined);
  const mismatched = storing.filter((s) => !s.rowsMatch);
  return [
    atLeast(
      'receiver / hand-written throughput',
      TARGETS.overHandWritten,
      ratios.receiverOverHandWritten,
    ),
    atLeast('receiver / bare throughput', TARGETS.overBare, ratios.receiverOverBare),
    {
      label: `receiver p99 at ${rate}/s`,
      target: `<= ${TARGETS.p99Ms} ms`,
      actual: p99 === undefined ? 'not measured' : `${p99.toFixed(2)} ms`,
      status: p99 === undefined ? 'n/a' : p99 <= TARGETS.p99Ms ? 'pass' : 'fail',
    },
    {
      label: 'receiver peak memory (VmHWM)',
      target: `< ${TARGETS.peakRssBytes / 1e6} MB`,
      actual: peak === undefined ? 'not measured' : `${(peak / 1e6).toFixed(1)} MB`,
      status: peak === undefined ? 'n/a' : peak < TARGETS.peakRssBytes ? 'pass' : 'fail',
    },
    {
      label: 'errors, timeouts and non-2xx (all servers)',
      target: '0',
      actual: failed.length === 0 ? '0' : failed.map((f) => `${f.server}: ${f.count}`).join(', '),
      status: failed.length === 0 ? 'pass' : 'fail',
    },
    {
      label: 'rows stored = 200s answered, every phase',
      target: 'equal',
      actual:
        storing.length === 0
          ? 'not measured'
          : storing.map((s) => `${s.server}: ${s.rowsStored}/${s.answered200}`).join(', '),
      status: storing.length === 0 ? 'n/a' : mismatched.length === 0 ? 'pass' : 'fail',
    },
  ];
}
