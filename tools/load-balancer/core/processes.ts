import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { getStatus, waitFor } from './net.ts';
import { projectDir } from '../../../src/lib/project-dir.ts';

const PROJECT_DIR = projectDir();

type MainProcess = ChildProcessByStdio<null, Readable, Readable>;
const START_TIMEOUT_MS = 60_000;

/**
 * One receiver instance: `node --import tsx src/cli/main.ts serve` from the repo root, configured only
 * through its environment, as an operator runs it. Its output is kept across restarts, so the
 * secrets check reads every line any incarnation wrote.
 */
export interface Receiver {
  readonly name: string;
  readonly port: number;
  readonly baseUrl: string;
  /** The running incarnation, or undefined between a stop and a start. */
  pid(): number | undefined;
  start(): Promise<void>;
  /** Sends the signal and resolves with the exit code once the process is gone. */
  stop(signal: NodeJS.Signals): Promise<number | null>;
  output(): string;
  /**
   * Changes the environment of the next start (the running incarnation keeps its own): a
   * scenario that needs the receivers configured otherwise stops them, reconfigures, starts.
   */
  reconfigure(change: (env: Record<string, string>) => Record<string, string>): void;
}

export function createReceiver(
  name: string,
  port: number,
  initialEnv: Record<string, string>,
): Receiver {
  const chunks: string[] = [];
  let env = { ...initialEnv };
  let child: MainProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);
  const baseUrl = `http://127.0.0.1:${port}`;

  const start = async () => {
    if (child) throw new Error(`${name} is already running`);
    const running = spawnMain(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' });
    child = running;
    chunks.push(`--- ${name} started (pid ${running.pid}) ---\n`);
    running.stdout.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    running.stderr.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    exited = new Promise((resolve) =>
      running.once('exit', (code, signal) => {
        chunks.push(`--- ${name} exited (code ${code}, signal ${signal}) ---\n`);
        if (child === running) child = undefined;
        resolve(code);
      }),
    );
    await waitFor(
      `${name} /readyz 200`,
      async () => {
        if (child !== running) throw new Error(`${name} exited during start:\n${tail(chunks)}`);
        return (await getStatus(`${baseUrl}/readyz`)) === 200;
      },
      START_TIMEOUT_MS,
    );
  };

  return {
    name,
    port,
    baseUrl,
    pid: () => child?.pid,
    start,
    stop: async (signal) => {
      const running = child;
      if (!running) return null;
      const gone = exited;
      running.kill(signal);
      return gone;
    },
    output: () => chunks.join(''),
    reconfigure: (change) => {
      env = change({ ...env });
    },
  };
}

/**
 * `node --import tsx src/cli/main.ts <args>` from the repository, as an operator runs it:
 * configured only through `env` (of the harness's environment only what node and tsx need).
 */
export function spawnMain(args: string[], env: Record<string, string>): MainProcess {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];
  const base = Object.fromEntries(
    keep.flatMap((key) => (process.env[key] ? [[key, process.env[key]] as const] : [])),
  );
  return spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: PROJECT_DIR,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function tail(chunks: string[]): string {
  return chunks.join('').split('\n').slice(-20).join('\n');
}
