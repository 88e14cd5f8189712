import type { Cleanup } from '../core/cleanup.ts';
import { spawnMain } from '../core/processes.ts';

/** The part of the command's JSON summary the chain reads (src/platform/recovery/run-recovery.ts). */
interface RecoverySummary {
  ok?: boolean;
  needsAttention?: boolean;
  errors?: string[];
  notifications?: {
    seen?: number;
    alreadyStored?: number;
    resent?: number;
    failed?: number;
    waiting?: number;
    inProgress?: number;
    quarantined?: number;
    unreadable?: number;
  };
  payto?: { receipts?: number; matched?: number; unmatched?: number; unreadable?: number } | null;
}

export interface RecoverOutcome {
  args: string[];
  /** Exit code; null when it was killed (signal) or timed out. */
  code: number | null;
  timedOut: boolean;
  summary: RecoverySummary | undefined;
  stdout: string;
  stderr: string;
  seconds: number;
}

/**
 * `node --import tsx src/cli/main.ts recover <args>` as an operator runs it (`npm run recover`),
 * configured only through `env`. Killed after `timeoutMs`; also on cleanup (Ctrl-C, timeout).
 */
export function runRecoverCommand(
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
  cleanup: Cleanup,
): Promise<RecoverOutcome> {
  const started = performance.now();
  const child = spawnMain(['recover', ...args], env);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  let running = true;
  let timedOut = false;
  cleanup.defer('stop the recover command', () => {
    if (running) child.kill('SIGKILL');
  });
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      running = false;
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString('utf8');
      resolve({
        args,
        code,
        timedOut,
        summary: parseSummary(stdout),
        stdout,
        stderr: Buffer.concat(err).toString('utf8'),
        seconds: (performance.now() - started) / 1000,
      });
    });
  });
}

/** The command prints its summary as one pretty-printed JSON object on stdout. */
function parseSummary(stdout: string): RecoverySummary | undefined {
  const start = stdout.indexOf('{');
  const end = stdout.lastIndexOf('}');
  if (start < 0 || end < start) return undefined;
  try {
    return JSON.parse(stdout.slice(start, end + 1)) as RecoverySummary;
  } catch {
    return undefined;
  }
}
