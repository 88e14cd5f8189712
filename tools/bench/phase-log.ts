import { otherCpu, postgresCpu } from './proc-stats.ts';
import type { LoadResult } from './load.ts';
import type { ServerName } from './options.ts';

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
