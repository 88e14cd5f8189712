import { readFileSync } from 'node:fs';

/** What Linux says about a process: resident memory and CPU time consumed so far. */

export interface MemoryStats {
  /** Resident set size now, bytes. */
  rssBytes: number;
  /** Peak resident set size since the process started (VmHWM), bytes. */
  peakRssBytes: number;
}

export function readMemory(pid: number): MemoryStats {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!match?.[1]) throw new Error(`/proc/${pid}/status has no ${field}`);
    return Number(match[1]) * 1024;
  };
  return { rssBytes: kib('VmRSS'), peakRssBytes: kib('VmHWM') };
}

/** Linux's USER_HZ is 100 on every mainstream architecture; /proc/<pid>/stat counts in it. */
const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU seconds the process has used (all its threads). */
export function readCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / CLOCK_TICKS_PER_SECOND;
}

/** The harness's own CPU seconds (it is the load generator). */
export function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/** CPU seconds the whole machine has spent busy (all cores, every process and the kernel). */
export function readMachineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal [guest guest_nice, already in user and nice]
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks;
  return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS_PER_SECOND;
}

export interface CpuUse {
  /** CPU seconds of the server process. */
  server: number;
  /** CPU seconds of this process, the load generator. */
  generator: number;
  /** CPU seconds of the Postgres backends connected to the server's database. */
  postgresBackends: number;
  /** CPU seconds of the cluster's background processes (WAL writer, checkpointer, ...). */
  postgresBackground: number;
  /** CPU seconds of the whole machine: all of the above and anyone else's processes. */
  machine: number;
}

/** All the CPU Postgres spent for the server: its backends and the background processes. */
export function postgresCpu(cpu: CpuUse): number {
  return cpu.postgresBackends + cpu.postgresBackground;
}

/** CPU seconds nobody measured here used: someone else's work on the machine. */
export function otherCpu(cpu: CpuUse): number {
  return Math.max(0, cpu.machine - cpu.server - postgresCpu(cpu) - cpu.generator);
}

/** CPU used from now until `read()`: call it the moment the measured work ends. */
export function startCpuMeter(
  pid: number,
  postgres: { backends: readonly number[]; background: readonly number[] },
): { read(): CpuUse } {
  const server = readCpuSeconds(pid);
  const generator = ownCpuSeconds();
  const backends = sumCpuSince(postgres.backends);
  const background = sumCpuSince(postgres.background);
  const machine = readMachineBusySeconds();
  return {
    read: () => ({
      server: readCpuSeconds(pid) - server,
      generator: ownCpuSeconds() - generator,
      postgresBackends: backends(),
      postgresBackground: background(),
      machine: readMachineBusySeconds() - machine,
    }),
  };
}

/** Reads the processes' CPU now; the returned function gives what they used since. */
function sumCpuSince(pids: readonly number[]): () => number {
  const before = pids.map(cpuSecondsIfAlive);
  return () =>
    pids.reduce((total, pid, i) => {
      const start = before[i];
      const end = cpuSecondsIfAlive(pid);
      return start === undefined || end === undefined ? total : total + end - start;
    }, 0);
}

/** A Postgres backend can exit mid-phase (an idle pool connection closed): it then counts 0. */
export function cpuSecondsIfAlive(pid: number): number | undefined {
  try {
    return readCpuSeconds(pid);
  } catch {
    return undefined;
  }
}
