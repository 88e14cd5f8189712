import type { BenchOptions, ServerName } from './core/options.ts';
import { postgresCpu } from './core/proc-stats.ts';
import type { PhaseRecord } from './core/rounds.ts';
import { describeRuntime, runtimeDifferences, type Runtime } from './core/runtime.ts';
import {
  failureCount,
  median,
  NOISY_OTHER_PERCENT,
  otherPercent,
  percentOfCore,
  summarisePhases,
  type Check,
  type PhasesSummary,
} from './core/summary.ts';

/** Medians over rounds, the ratios between servers, and the targets from the issue. */

export interface MemoryRecord {
  /** Resident set right after the server answered ready. */
  startRssBytes: number;
  /** VmHWM at the end of the run: the most the process ever held resident. */
  peakRssBytes: number;
}

export interface ServerSummary extends PhasesSummary {
  server: ServerName;
  memory: MemoryRecord | undefined;
  /**
   * Median CPU use in the throughput phases, percent of one core: the server, its Postgres
   * processes, the load generator, and everything else on the machine (other people's work).
   */
  cpuPercent: { server: number; postgres: number; generator: number; other: number };
  /** The Node flags and runtime variables it ran with. */
  runtime: Runtime | undefined;
}

export interface Summary {
  servers: ServerSummary[];
  /** Receiver over bare is the framework's ceiling, for reference: not a target. */
  ratios: { receiverOverHandWritten: number | undefined; receiverOverBare: number | undefined };
  /** How the servers' runtimes differ; empty when like for like. */
  runtimeDifferences: string[];
  checks: Check[];
  passed: boolean;
  /**
   * CPU other processes used during the measured phases (median over phases, percent of one
   * core). Above NOISY_OTHER_PERCENT the box was shared and the ratios are unreliable.
   */
  interference: { medianOtherPercent: number; noisy: boolean };
}

export const TARGETS = {
  /** Receiver / hand-written throughput: must reach this... */
  overHandWritten: 1.0,
  /** ...and should reach this (reported, does not fail the run). */
  overHandWrittenAim: 1.2,
  p99Ms: 15,
  peakRssBytes: 150e6,
} as const;

export function summarise(
  options: Pick<BenchOptions, 'rate' | 'only'>,
  records: readonly PhaseRecord[],
  memory: Partial<Record<ServerName, MemoryRecord>>,
  runtimes: Partial<Record<ServerName, Runtime>> = {},
): Summary {
  const servers = options.only.map((name) =>
    summariseServer(
      name,
      records.filter((record) => record.server === name),
      memory[name],
      runtimes[name],
    ),
  );
  const differences = runtimeDifferences(
    servers.flatMap((s) => (s.runtime ? [{ name: s.server, runtime: s.runtime }] : [])),
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
  const checks = [
    runtimeCheck(servers, differences),
    ...buildChecks(options.rate, receiver, servers, ratios),
  ];
  const medianOtherPercent = median(records.map(otherPercent));
  return {
    servers,
    ratios,
    runtimeDifferences: differences,
    checks,
    passed: checks.every((check) => check.status !== 'fail'),
    interference: {
      medianOtherPercent,
      noisy: medianOtherPercent > NOISY_OTHER_PERCENT,
    },
  };
}

/** Ratios are only like for like when every server ran with the same flags and environment. */
function runtimeCheck(servers: readonly ServerSummary[], differences: string[]): Check {
  const known = servers.flatMap((s) => (s.runtime ? [describeRuntime(s.runtime)] : []));
  const first = known[0];
  return {
    label: 'same Node flags and environment (all servers)',
    target: 'same',
    actual:
      differences.length > 0
        ? differences.join('; ')
        : first
          ? `flags ${first.flags}; env ${first.env}`
          : 'not recorded',
    status: known.length < 2 ? 'n/a' : differences.length === 0 ? 'pass' : 'fail',
  };
}

function summariseServer(
  server: ServerName,
  records: readonly PhaseRecord[],
  memory: MemoryRecord | undefined,
  runtime: Runtime | undefined,
): ServerSummary {
  const throughput = records.filter((record) => record.phase === 'throughput');
  const percent = (pick: (record: PhaseRecord) => number) =>
    median(throughput.map((r) => percentOfCore(pick(r), r.load.elapsedSeconds)));
  return {
    server,
    ...summarisePhases(records),
    memory,
    cpuPercent: {
      server: percent((record) => record.load.cpu.server),
      postgres: percent((record) => postgresCpu(record.load.cpu)),
      generator: percent((record) => record.load.cpu.generator),
      other: median(throughput.map(otherPercent)),
    },
    runtime,
  };
}

function buildChecks(
  rate: number,
  receiver: ServerSummary | undefined,
  servers: readonly ServerSummary[],
  ratios: Summary['ratios'],
): Check[] {
  const overHandWritten = ratios.receiverOverHandWritten;
  const aim = TARGETS.overHandWrittenAim;
  const p99 = receiver?.latency.p99;
  const peak = receiver?.memory?.peakRssBytes;
  const failures = servers.map((s) => ({ server: s.server, count: failureCount(s) }));
  const failed = failures.filter((f) => f.count > 0);
  const storing = servers.filter((s) => s.rowsMatch !== undefined);
  const mismatched = storing.filter((s) => !s.rowsMatch);
  return [
    {
      label: 'receiver / hand-written throughput',
      target: `>= ${TARGETS.overHandWritten.toFixed(2)}x (aim ${aim.toFixed(2)}x)`,
      actual:
        overHandWritten === undefined
          ? 'not measured'
          : `${overHandWritten.toFixed(2)}x (aim ${overHandWritten >= aim ? 'reached' : 'not reached'})`,
      status:
        overHandWritten === undefined
          ? 'n/a'
          : overHandWritten >= TARGETS.overHandWritten
            ? 'pass'
            : 'fail',
    },
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
