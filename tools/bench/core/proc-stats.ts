import { readdirSync, readFileSync } from 'node:fs';

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

/** Fields of /proc/<pid>/stat after the command name (field 3 is index 0). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** User + system CPU seconds the process has used (all its threads). */
function readCpuSeconds(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** The harness's own CPU seconds (it is the load generator). */
function ownCpuSeconds(): number {
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
function cpuSecondsIfAlive(pid: number): number | undefined {
  try {
    return readCpuSeconds(pid);
  } catch {
    return undefined;
  }
}

/** CPU seconds of the processes in `after` that are not in `before` (born during a phase). */
export function cpuOfNewPids(before: readonly number[], after: readonly number[]): number {
  return after
    .filter((pid) => !before.includes(pid))
    .reduce((total, pid) => total + (cpuSecondsIfAlive(pid) ?? 0), 0);
}

/**
 * CPU seconds at nanosecond precision, for the idle windows of --stored: an idle receiver and its
 * Postgres use a few hundred milliseconds of CPU in 30 s, and /proc/<pid>/stat's 10 ms ticks
 * would move a ratio by tens of per cent. /proc/<pid>/task/<tid>/schedstat counts each thread's
 * time on a CPU in nanoseconds; where a kernel lacks it, the ticks are used. Undefined once the
 * process is gone.
 */
export function preciseCpuSeconds(pid: number): number | undefined {
  try {
    let nanoseconds = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      nanoseconds += Number(
        readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0],
      );
    }
    return nanoseconds / 1e9;
  } catch {
    return cpuSecondsIfAlive(pid);
  }
}

export function parentPid(pid: number): number | undefined {
  try {
    return Number(statFields(pid)[1]);
  } catch {
    return undefined;
  }
}

/**
 * Every CPU second a Postgres cluster has used: the postmaster, every process it runs now
 * (backends, WAL writer, checkpointer, autovacuum, ...), and every one that has exited, which
 * Linux adds to the postmaster's reaped-children time (cutime + cstime, in ticks) when it
 * collects them. So a connection that opens and closes inside a window still counts.
 */
export function clusterCpuSeconds(postmaster: number): number {
  let fields: string[];
  try {
    fields = statFields(postmaster);
  } catch {
    throw new Error(`the Postgres postmaster (pid ${postmaster}) is gone`);
  }
  const reaped = (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS_PER_SECOND;
  let total = reaped + (preciseCpuSeconds(postmaster) ?? 0);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid !== postmaster && parentPid(pid) === postmaster) total += preciseCpuSeconds(pid) ?? 0;
  }
  return total;
}
