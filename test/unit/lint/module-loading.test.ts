import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const PROBE = path.join(ROOT, 'test/support/loaded-packages.mjs');

/**
 * The names of `names` that importing `modulePath` (alone, in a fresh process) loads: packages,
 * or folders and files of the project (`src/platform/cli/`).
 */
function loadedBy(modulePath: string, names: string[]): string[] {
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', PROBE, path.join(ROOT, modulePath), ...names],
    { cwd: ROOT, encoding: 'utf8', timeout: 30_000 },
  );
  return JSON.parse(out.trim().split('\n').at(-1) ?? '[]') as string[];
}

/**
 * A door loads every module it re-exports (ESM has no lazy re-export), so a command that needs
 * one name of the receiver would load its whole HTTP stack if the door held it. The Express app
 * has a door of its own (src/receiver/app.ts, and the feed's src/feed/app.ts): commands that only
 * store or read never load it.
 */
describe('what a command loads', () => {
  it.each(['src/cli/quarantine.ts', 'src/cli/prune.ts'])(
    'when %s is imported, then Express is not loaded',
    (command) => {
      expect(loadedBy(command, ['express'])).toEqual([]);
    },
  );

  it('when the composed configuration is imported, then only settings load: no Express, database, logger or metrics', () => {
    // tools/docs/ and tools/capture/ read it (lint/boundaries.mjs lets them): settings, nothing more.
    expect(loadedBy('src/cli/config.ts', ['express', 'pg', 'pino', 'prom-client'])).toEqual([]);
  });

  it('when the serving command is imported, then Express is (the probe sees what it looks for)', () => {
    expect(loadedBy('src/cli/serve.ts', ['express'])).toEqual(['express']);
  });

  it('when the serving command is imported, then neither the provider command line nor the recovery run and its report parsing (csv-parse) is: the scheduled recovery loads them only once it is on', () => {
    const recoveryRun = [
      'src/platform/cli/',
      'src/platform/client/provider-client.ts',
      'src/platform/recovery/run-recovery.ts',
    ];
    expect(loadedBy('src/cli/serve.ts', ['csv-parse', ...recoveryRun])).toEqual([]);
  });

  it("when the platform's door is imported, then csv-parse and the provider command line are (the probe sees ES modules and the project's files)", () => {
    expect(loadedBy('src/platform/index.ts', ['csv-parse', 'src/platform/cli/'])).toEqual([
      'csv-parse',
      'src/platform/cli/',
    ]);
  });
});
