import { execFileSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { readMachineBusySeconds } from './proc-stats.ts';

/** What the figures depend on besides the code: printed with every result. */
export interface MachineFacts {
  cpus: number;
  cpuModel: string;
  memoryBytes: number;
  kernel: string;
  node: string;
  /** 1-minute load average when the run started: anything well above 0 means a busy box. */
  loadAverageAtStart: number;
  /** Machine CPU busy before anything started, percent of one core: other people's work. */
  busyPercentBeforeRun: number;
}

/** How busy the machine is while the harness does nothing, percent of one core. */
export async function sampleBusyPercent(milliseconds: number): Promise<number> {
  const before = readMachineBusySeconds();
  await new Promise((resolve) => setTimeout(resolve, milliseconds));
  return ((readMachineBusySeconds() - before) / (milliseconds / 1000)) * 100;
}

/** Between phases our own processes idle: anything above this is someone else's work. */
const QUIET_PERCENT = 25;

/**
 * Waits until the machine is quiet (under QUIET_PERCENT of one core busy over half a second) or
 * `maxSeconds` pass. Returns how long it waited and how busy the last sample was.
 */
export async function waitForQuiet(
  maxSeconds: number,
): Promise<{ waitedSeconds: number; busyPercent: number; quiet: boolean }> {
  const started = performance.now();
  for (;;) {
    const busyPercent = await sampleBusyPercent(500);
    const waitedSeconds = (performance.now() - started) / 1000;
    const quiet = busyPercent < QUIET_PERCENT;
    if (quiet || waitedSeconds >= maxSeconds) return { waitedSeconds, busyPercent, quiet };
  }
}

export function describeMachine(busyPercentBeforeRun: number): MachineFacts {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    memoryBytes: totalmem(),
    kernel: release(),
    node: process.version,
    loadAverageAtStart: loadavg()[0] ?? 0,
    busyPercentBeforeRun,
  };
}

/** Which receiver was measured: the commit, and whether src/ or migrations/ had local changes. */
export function describeCode(projectDir: string): { commit: string; uncommittedChanges: boolean } {
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: projectDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  try {
    return {
      commit: git('rev-parse', '--short', 'HEAD'),
      uncommittedChanges: git('status', '--porcelain', '--', 'src', 'migrations') !== '',
    };
  } catch {
    return { commit: 'unknown', uncommittedChanges: false };
  }
}
