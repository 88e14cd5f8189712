import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ToolRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A docs generator (tools/docs/<script>) run as `npm run` runs it, on a copy of the project's
 * `files` in a directory of its own (`--dir`), made before the file's tests and removed after:
 * a test may make them stale without touching the checkout.
 */
export function useDocsToolOnCopy(script: string, files: readonly string[]) {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'docs-tool-'));
    for (const file of files) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      copyFileSync(path.join(ROOT, file), path.join(dir, file));
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    /** Where the copy is. */
    path: (file: string) => path.join(dir, file),
    async run(...args: string[]): Promise<ToolRun> {
      try {
        const { stdout, stderr } = await promisify(execFile)(
          'npx',
          ['tsx', `tools/docs/${script}`, '--dir', dir, ...args],
          { cwd: ROOT },
        );
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as ToolRun;
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    },
  };
}
