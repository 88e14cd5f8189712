import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cruiseBoundaries, folderCycles } from '../../../lint/check-boundaries.mjs';

/**
 * The boundary rules (lint/boundaries.mjs, dependency-cruiser) and the folder-cycle check
 * (lint/check-boundaries.mjs), each on a small tree of its own written to a temporary folder:
 * what may import what, and what is caught. The project's own tree is checked by
 * `npm run lint:boundaries`.
 */

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

let root: string | undefined;

afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** Writes `files` (path → source) into a fresh folder; every file exports something. */
function tree(files: Record<string, string>): string {
  root = mkdtempSync(path.join(tmpdir(), 'boundaries-'));
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(root, file), `${source}\nexport const here = 1;\n`);
  }
  return root;
}

async function rulesBroken(files: Record<string, string>): Promise<string[]> {
  const result = (await cruiseBoundaries(tree(files), ['src', 'tools', 'migrations'])) as {
    summary: { violations: Violation[] };
  };
  return result.summary.violations.map(({ rule, from, to }) => `${rule.name}: ${from} -> ${to}`);
}

/** The files a few rows need to exist (so that imports resolve). */
const DOORS = {
  'src/receiver/index.ts': "export * from './http/app.ts';",
  'src/receiver/http/app.ts': '',
  'src/receiver/app.ts': "export * from './http/app.ts';",
  'src/receiver/config.ts': "export * from './http/settings.ts';",
  'src/receiver/http/settings.ts': '',
  'src/receiver/contract.ts': '',
  'src/receiver/signature.ts': '',
  'src/feed/contract.ts': '',
  'src/platform/index.ts': "export * from './client/client.ts';",
  'src/platform/client/client.ts': '',
  'src/platform/scheduled.ts': "export * from './recovery/scheduled-recovery.ts';",
  'src/platform/recovery/scheduled-recovery.ts': '',
  'src/feed/index.ts': "export * from './relay.ts';",
  'src/feed/relay.ts': '',
  'src/operations/index.ts': '',
  'src/capture/index.ts': '',
  'src/cli/main.ts': '',
  'src/cli/config.ts': "import '../receiver/config.ts';",
  'src/lib/time.ts': '',
  'tools/common/port.ts': '',
  'test/support/signing.ts': '',
  'migrations/m.ts': '',
};

describe('the boundary rules', () => {
  it.each([
    ['src/lib/x.ts', "import '../receiver/index.ts';", 'lib-stands-alone'],
    ['src/lib/x.ts', "import '../../tools/common/port.ts';", 'lib-stands-alone'],
    ['src/receiver/http/x.ts', "import '../../feed/index.ts';", 'receiver-stands-alone'],
    ['src/receiver/http/x.ts', "import '../../cli/main.ts';", 'receiver-stands-alone'],
    ['src/receiver/http/x.ts', "import '../../capture/index.ts';", 'receiver-stands-alone'],
    ['src/capture/x.ts', "import '../feed/index.ts';", 'capture-builds-on-receiver'],
    ['src/feed/x.ts', "import '../platform/index.ts';", 'feed-apart-from-platform'],
    ['src/platform/client/x.ts', "import '../../feed/index.ts';", 'platform-apart-from-feed'],
    ['src/operations/x.ts', "import '../feed/index.ts';", 'operations-above-feed'],
    ['src/platform/client/x.ts', "import '../../receiver/index.ts';", 'platform-builds-on-lib'],
    ['src/operations/x.ts', "import '../platform/index.ts';", 'operations-apart-from-platform'],
    ['src/feed/x.ts', "import '../cli/main.ts';", 'only-the-cli-composes'],
    ['src/feed/x.ts', "import '../receiver/http/app.ts';", 'through-the-door'],
    ['src/cli/x.ts', "import '../platform/client/client.ts';", 'through-the-door'],
    ['src/cli/x.ts', "import '../platform/recovery/scheduled-recovery.ts';", 'through-the-door'],
    ['src/feed/x.ts', "import '../platform/scheduled.ts';", 'feed-apart-from-platform'],
    ['tools/sandbox/x.ts', "import '../../src/receiver/http/app.ts';", 'tools-through-the-door'],
    ['src/cli/x.ts', "import '../feed/contract.ts';", 'through-the-door'],
    ['tools/sandbox/x.ts', "import '../../src/cli/main.ts';", 'tools-use-doors-and-lib'],
    ['src/cli/config.ts', "import '../receiver/index.ts';", 'cli-config-composes-settings'],
    ['src/cli/config.ts', "import './main.ts';", 'cli-config-composes-settings'],
    ['src/cli/x.ts', "import '../receiver/http/settings.ts';", 'through-the-door'],
    ['tools/sandbox/x.ts', "import '../../test/support/signing.ts';", 'tools-use-doors-and-lib'],
    ['src/receiver/http/x.ts', "import '../../../tools/common/port.ts';", 'runtime-without-tools'],
    ['src/feed/x.ts', "import '../../migrations/m.ts';", 'runtime-without-tools'],
    ['migrations/x.ts', "import '../src/lib/time.ts';", 'migrations-frozen'],
  ])('when %s does %s, then %s reports it', async (file, code, rule) => {
    const broken = await rulesBroken({ ...DOORS, [file]: code });
    // A direction rule (`reachable`) names each module reached, and an import can break two
    // rules (lib -> tools is also a runtime import of tools), so there may be several lines: all
    // of them about this file, at least one of them this rule's.
    expect(broken.filter((line) => line.startsWith(`${rule}: ${file} -> `))).not.toEqual([]);
    for (const line of broken) expect(line).toMatch(new RegExp(`^[a-z-]+: ${file} -> `));
  });

  it('catches a forbidden direction through a third module, not only a direct import', async () => {
    const broken = await rulesBroken({
      ...DOORS,
      // receiver -> lib -> feed: lib breaks its own rule, and the receiver now reaches the feed.
      'src/receiver/http/x.ts': "import '../../lib/bridge.ts';",
      'src/lib/bridge.ts': "import '../feed/index.ts';",
    });
    expect(broken).toContain('receiver-stands-alone: src/receiver/http/x.ts -> src/feed/index.ts');
    expect(broken).toContain('lib-stands-alone: src/lib/bridge.ts -> src/feed/index.ts');
  });

  it('catches a cycle of files, type-only imports included', async () => {
    const broken = await rulesBroken({
      'src/receiver/http/a.ts': "import type { here } from './b.ts'; export type A = typeof here;",
      'src/receiver/http/b.ts': "import { here as a } from './a.ts'; export const b = a;",
    });
    expect(broken).toEqual(
      expect.arrayContaining([expect.stringMatching(/^no-cycles: src\/receiver\/http\/a\.ts/)]),
    );
  });

  it.each([
    ['src/receiver/http/x.ts', "import '../delivery/y.ts'; import '../../lib/time.ts';"],
    ['src/feed/x.ts', "import '../receiver/index.ts'; import '../lib/time.ts';"],
    ['src/operations/x.ts', "import '../receiver/index.ts'; import '../lib/time.ts';"],
    ['src/platform/client/x.ts', "import '../../lib/time.ts';"],
    ['src/cli/x.ts', "import '../feed/index.ts'; import '../operations/index.ts';"],
    ['src/cli/x.ts', "import '../receiver/app.ts';"],
    ['src/cli/x.ts', "import '../platform/scheduled.ts'; import '../platform/index.ts';"],
    ['src/feed/x.ts', "import '../receiver/contract.ts'; import '../receiver/signature.ts';"],
    ['tools/capture/x.ts', "import '../../src/receiver/signature.ts';"],
    ['src/cli/config.ts', "import '../receiver/config.ts'; import '../lib/time.ts';"],
    ['tools/docs/x.ts', "import '../../src/cli/config.ts'; import '../../src/receiver/config.ts';"],
    ['src/capture/x.ts', "import '../receiver/index.ts'; import '../lib/time.ts';"],
    ['tools/sandbox/x.ts', "import '../../src/receiver/index.ts'; import '../common/port.ts';"],
    ['tools/sandbox/test/x.test.ts', "import '../../../src/receiver/http/app.ts';"],
    ['src/lib/x.ts', "import './time.ts'; import 'node:crypto';"],
  ])('when %s does %s, then no rule objects', async (file, code) => {
    const broken = await rulesBroken({
      ...DOORS,
      'src/receiver/delivery/y.ts': '',
      [file]: code,
    });
    expect(broken).toEqual([]);
  });
});

describe('the folder-cycle check', () => {
  it('reports folders that import each other though no file cycle exists', async () => {
    const result = await cruiseBoundaries(
      tree({
        'tools/a/one.ts': "import '../b/two.ts';",
        'tools/a/three.ts': '',
        'tools/b/two.ts': '',
        'tools/b/four.ts': "import '../a/three.ts';",
      }),
      ['tools'],
    );
    expect((result as { summary: { violations: Violation[] } }).summary.violations).toEqual([]);
    expect(folderCycles(result)).toEqual([['tools/a', 'tools/b']]);
  });

  it('reports a parent folder and its child that import each other', async () => {
    const result = await cruiseBoundaries(
      tree({
        'tools/a/index.ts': "import './child/one.ts';",
        'tools/a/base.ts': '',
        'tools/a/child/one.ts': "import '../base.ts';",
      }),
      ['tools'],
    );
    expect(folderCycles(result)).toEqual([['tools/a', 'tools/a/child']]);
  });

  it('accepts folders that import one way only', async () => {
    const result = await cruiseBoundaries(
      tree({ 'tools/a/one.ts': "import '../b/two.ts';", 'tools/b/two.ts': "import 'node:fs';" }),
      ['tools'],
    );
    expect(folderCycles(result)).toEqual([]);
  });
});
