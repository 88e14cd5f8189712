import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { emptyState, type SandboxState } from './types.ts';

/** A state file larger than this is refused rather than read into memory. */
const MAX_STATE_FILE_BYTES = 256 * 1024 * 1024;
const COLLECTIONS = [
  'wallets',
  'payIds',
  'payments',
  'refunds',
  'subscriptions',
  'notifications',
] as const;

/** The saved state, or a fresh one when the file does not exist yet. */
export async function loadState(file: string): Promise<SandboxState> {
  if (!existsSync(file)) return emptyState();
  const { size } = await stat(file);
  if (size > MAX_STATE_FILE_BYTES)
    throw new Error(`${file} is larger than ${MAX_STATE_FILE_BYTES} bytes`);
  const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<SandboxState>;
  if (parsed.version !== 1) throw new Error(`${file} is not a sandbox state file (version 1)`);
  for (const name of COLLECTIONS) {
    if (!Array.isArray(parsed[name])) throw new Error(`${file}: "${name}" is not a list`);
  }
  const state = { ...emptyState(), ...parsed } as SandboxState;
  // A delivery that was under way when the sandbox stopped will not finish now.
  for (const notification of state.notifications) {
    if (notification.status === 'Pending') notification.status = 'Error';
  }
  return state;
}

/** Written beside the file, then renamed over it, so a crash never leaves half a state. */
export async function saveState(file: string, state: SandboxState): Promise<void> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(state), { mode: 0o600 });
  await rename(temporary, file);
}

/**
 * Saves after changes, at most once per `delayMs`, and once more on `flush()` (at exit), so a
 * burst of payments is one write rather than hundreds.
 */
export function createStateSaver(file: string, snapshot: () => SandboxState, delayMs = 200) {
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  const write = () => {
    timer = undefined;
    writing = writing
      .then(() => saveState(file, snapshot()))
      .catch((error: unknown) => {
        process.stderr.write(`sandbox: could not save ${file}: ${String(error)}\n`);
      });
  };
  return {
    schedule() {
      timer ??= setTimeout(write, delayMs).unref();
    },
    async flush() {
      if (timer) clearTimeout(timer);
      write();
      await writing;
    },
  };
}
