import { runCommandLine as runMain } from '../../src/cli/command-line.ts';
import { exitCodeOf } from '../../src/cli/exit-codes.ts';
import type {
  CommandDescription,
  CommandIo,
} from '../../src/lib/command-line/command-description.ts';
import { runCommand } from '../../src/lib/command-line/run-command.ts';
import type { Db } from '../../src/lib/database/database.ts';
import { feedCommand } from '../../src/feed/feed-command.ts';
import { PROJECT_DIR } from './receiver-process.ts';

/**
 * `main.ts <argv>` in this process: main's command table and exit-code policy as the real entry
 * runs them, configured only by `env` (nothing of the test's own environment), without the
 * seconds a process of its own takes to start. Its exit code, stdout and stderr apart.
 * (test/integration/operations/main-process.test.ts runs the real process.)
 */
export async function runCommandLine(
  argv: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | 'serving'; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runMain(argv, {
    env,
    out: (text) => (stdout += `${text}\n`),
    err: (text) => (stderr += `${text}\n`),
    projectDir: PROJECT_DIR,
  });
  return { code, stdout, stderr };
}

/**
 * One command a module describes (given what it works on, e.g. a test's database), run on
 * `argv` under the command line's exit-code policy, writing to `io`: its exit code.
 */
export function runDescribedCommand(
  description: CommandDescription,
  argv: readonly string[],
  io: CommandIo,
): Promise<number | 'serving'> {
  return exitCodeOf(runCommand(description, argv, io), 'failed', io.err);
}

/** `feed <args>` on `db` (a test's), as main.ts runs it: its exit code; its lines to `out`, `err`. */
export function runFeedCommand(
  db: Db,
  args: readonly string[],
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number | 'serving'> {
  const io = { out, err };
  return runDescribedCommand(feedCommand({ io, withDatabase: (work) => work(db) }), args, io);
}

/** `feed <args>` on `db`: its exit code, and its stdout and stderr lines joined. */
export async function feedOutput(
  db: Db,
  ...args: string[]
): Promise<{ code: number | 'serving'; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runFeedCommand(
    db,
    args,
    (line) => out.push(line),
    (line) => err.push(line),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}
