import { spawn, type ChildProcess } from 'node:child_process';
import { getStatus, waitFor } from './net.ts';
import { projectDir } from '../../../src/lib/project-dir.ts';

const PROJECT_DIR = projectDir();
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
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);
  const baseUrl = `http://127.0.0.1:${port}`;

  const start = async () => {
    if (child) throw new Error(`${name} is already running`);
    const running = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
      cwd: PROJECT_DIR,
      env: { ...baseEnv(), ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = running;
    chunks.push(`--- ${name} started (pid ${running.pid}) ---\n`);
    running.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    running.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
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

/** Only what node and tsx need from the harness's environment; the rest is explicit. */
function baseEnv(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];
  return Object.fromEntries(
    keep.flatMap((key) => (process.env[key] ? [[key, process.env[key]] as const] : [])),
  );
}

function tail(chunks: string[]): string {
  return chunks.join('').split('\n').slice(-20).join('\n');
}
