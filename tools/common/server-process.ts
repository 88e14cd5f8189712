import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

/**
 * A server a tool measures or attacks, as its own process: `node <flags> <compiled script>`,
 * stdout to a log file (so the receiver's per-delivery log lines are really written), stderr to
 * another; ready once `readyPath` answers 200.
 */

interface ServerLaunch {
  script: string;
  /** The script's own arguments (after it): `serve` for the receiver's dist/src/cli/main.js. */
  args?: readonly string[];
  /** Node flags (before the script). */
  nodeArgs: readonly string[];
  env: Record<string, string>;
  port: number;
  /** Answers 200 once the server can take deliveries. */
  readyPath: string;
  stdoutFile: string;
  stderrFile: string;
}

export interface RunningServer {
  readonly pid: number;
  readonly url: string;
  /** SIGTERM, then SIGKILL if it has not exited in time. Safe to call twice. */
  stop(): Promise<void>;
  /** Last resort on the way out of a crashed run: SIGKILL now, no waiting. */
  killNow(): void;
  /** Undefined while running; otherwise why it stopped, with the end of its stderr. */
  exitReport(): string | undefined;
}

const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;

export async function startServer(launch: ServerLaunch, cwd: string): Promise<RunningServer> {
  const stdout = openSync(launch.stdoutFile, 'w');
  const stderr = openSync(launch.stderrFile, 'w');
  const child = spawn(
    process.execPath,
    [...launch.nodeArgs, launch.script, ...(launch.args ?? [])],
    {
      cwd,
      env: launch.env,
      stdio: ['ignore', stdout, stderr],
    },
  );
  closeSync(stdout);
  closeSync(stderr);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.pid === undefined) throw new Error(`could not start ${launch.script}`);
  const running = () => child.exitCode === null && child.signalCode === null;
  const server: RunningServer = {
    pid: child.pid,
    url: `http://127.0.0.1:${launch.port}`,
    stop: () => stopChild(child, exited, running),
    killNow: () => {
      if (running()) child.kill('SIGKILL');
    },
    exitReport: () =>
      running()
        ? undefined
        : `${launch.script} exited (${child.exitCode ?? child.signalCode}):\n` +
          readFileSync(launch.stderrFile, 'utf8').slice(-2000),
  };
  try {
    await waitUntilReady(`${server.url}${launch.readyPath}`, running);
  } catch (error) {
    await server.stop();
    const tail = readFileSync(launch.stderrFile, 'utf8').slice(-2000);
    throw new Error(`${launch.script} did not become ready: ${String(error)}\n${tail}`);
  }
  return server;
}

async function waitUntilReady(url: string, running: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!running()) throw new Error('the process exited');
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no 200 from ${url} within ${READY_TIMEOUT_MS} ms`);
}

async function stopChild(
  child: ChildProcess,
  exited: Promise<void>,
  running: () => boolean,
): Promise<void> {
  if (!running()) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
