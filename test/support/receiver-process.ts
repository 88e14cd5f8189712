import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The real entry point as an operator runs it: `src/cli/main.ts <command>` (`runMain('serve', …)`,
 * the receiver) in its own process, configured only through the environment (nothing leaks in
 * from the developer's shell but PATH).
 */

export const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));

export interface RunningProcess {
  child: ChildProcess;
  /** Everything read so far from stdout (unless left unread) and stderr. */
  output: () => string;
  exited: Promise<number | null>;
}

export interface RunOptions {
  /** Leave stdout unread: the pipe fills and the process's writes to it stall. */
  stallStdout?: boolean;
  /** Its own process group (as a shell runs a foreground job), so a test can signal the group. */
  processGroup?: boolean;
  /** Command-line arguments after the script. */
  args?: string[];
}

export function runScript(
  script: string,
  env: Record<string, string>,
  options: RunOptions = {},
): RunningProcess {
  let output = '';
  const stdio: StdioOptions = ['ignore', 'pipe', 'pipe'];
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...(options.args ?? [])], {
    cwd: PROJECT_DIR,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio,
    detached: options.processGroup ?? false,
  });
  if (options.stallStdout) child.stdout?.pause();
  else child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** The one command line, `src/cli/main.ts <command> [args]`, as `npm start`/`npm run <command>` run it. */
export function runMain(
  command: string,
  env: Record<string, string>,
  options: RunOptions = {},
): RunningProcess {
  return runScript(MAIN_SCRIPT, env, { ...options, args: [command, ...(options.args ?? [])] });
}

export const MAIN_SCRIPT = 'src/cli/main.ts';

export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** True once `url` answers with this status (false while nothing listens yet). */
export async function answers(url: string, status = 200): Promise<boolean> {
  try {
    return (await fetch(url)).status === status;
  } catch {
    return false;
  }
}

/** Resolves with the exit code, or with 'still running' after `ms`. */
export function exitWithin(
  running: RunningProcess,
  ms: number,
): Promise<number | null | 'still running'> {
  return Promise.race([
    running.exited,
    new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), ms)),
  ]);
}
