import { readdirSync, readFileSync } from 'node:fs';
import { readCpuSeconds } from '../proc-stats.ts';

/**
 * CPU time at nanosecond precision, for the idle windows. An idle receiver and its Postgres use
 * a few hundred milliseconds of CPU in 30 s; /proc/<pid>/stat counts in 10 ms ticks, coarse
 * enough to move a ratio by tens of per cent. /proc/<pid>/task/<tid>/schedstat counts each
 * thread's time on a CPU in nanoseconds; where a kernel lacks it, the ticks are used.
 */

/** CPU seconds a process has used, all its threads; undefined once it is gone. */
export function processCpuSeconds(pid: number): number | undefined {
  try {
    const tasks = readdirSync(`/proc/${pid}/task`);
    let nanoseconds = 0;
    for (const task of tasks) {
      const field = readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0];
      nanoseconds += Number(field);
    }
    return nanoseconds / 1e9;
  } catch {
    try {
      return readCpuSeconds(pid);
    } catch {
      return undefined;
    }
  }
}

const CLOCK_TICKS_PER_SECOND = 100;

/** Fields of /proc/<pid>/stat after the command name (field 3 is index 0). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

export function parentPid(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields ? Number(fields[1]) : undefined;
}

/**
 * Every CPU second a Postgres cluster has used: the postmaster, every process it runs now
 * (backends, WAL writer, checkpointer, autovacuum, ...), and every one that has exited, which
 * Linux adds to the postmaster's reaped-children time (cutime + cstime, in ticks) when it
 * collects them. So a connection that opens and closes inside a window still counts.
 */
export function clusterCpuSeconds(postmaster: number): number {
  const fields = statFields(postmaster);
  if (!fields) throw new Error(`the Postgres postmaster (pid ${postmaster}) is gone`);
  const reaped = (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS_PER_SECOND;
  let total = reaped + (processCpuSeconds(postmaster) ?? 0);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid !== postmaster && parentPid(pid) === postmaster) total += processCpuSeconds(pid) ?? 0;
  }
  return total;
}
