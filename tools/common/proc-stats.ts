import { readFileSync } from 'node:fs';

/** What Linux says about a process: resident memory and CPU time consumed so far. */

export interface MemoryStats {
  /** Resident set size now, bytes. */
  rssBytes: number;
  /** Peak resident set size since the process started (VmHWM), bytes. */
  peakRssBytes: number;
}

export function readMemory(pid: number): MemoryStats {
  return parseMemory(readFileSync(`/proc/${pid}/status`, 'utf8'));
}

/** The memory fields of a /proc/<pid>/status text. */
export function parseMemory(status: string): MemoryStats {
  const kib = (field: string): number => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!match?.[1]) throw new Error(`/proc/<pid>/status has no ${field}`);
    return Number(match[1]) * 1024;
  };
  return { rssBytes: kib('VmRSS'), peakRssBytes: kib('VmHWM') };
}

/** Linux's USER_HZ is 100 on every mainstream architecture; /proc/<pid>/stat counts in it. */
const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU seconds the process has used so far, all its threads. */
export function readCpuSeconds(pid: number): number {
  return parseCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** utime + stime (fields 14 and 15) of a /proc/<pid>/stat line, in seconds. */
export function parseCpuSeconds(stat: string): number {
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime] = [Number(fields[11]), Number(fields[12])];
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) {
    throw new Error(`not a /proc/<pid>/stat line: ${stat.slice(0, 80)}`);
  }
  return (utime + stime) / CLOCK_TICKS_PER_SECOND;
}
