import { describe, expect, it } from 'vitest';
import {
  runtimeDifferences,
  runtimeOf,
  runtimeOfStartScript,
  sharedRuntime,
} from '../core/runtime.ts';

const START_PROD = 'MALLOC_ARENA_MAX=2 node --max-semi-space-size=2 dist/src/cli/main.js serve';

describe('runtime parity', () => {
  it('when the production preset is chosen, then every server gets what start:prod sets', () => {
    expect(sharedRuntime('production', START_PROD, undefined)).toEqual({
      nodeArgs: ['--max-semi-space-size=2'],
      env: { MALLOC_ARENA_MAX: '2' },
    });
    expect(sharedRuntime('node-defaults', START_PROD, ' --cpu-prof  --stack-size=900 ')).toEqual({
      nodeArgs: ['--cpu-prof', '--stack-size=900'],
      env: {},
    });
  });

  it('when start:prod changes, then the production runtime follows it, and an unreadable one stops the run', () => {
    expect(runtimeOfStartScript('node dist/src/cli/serve.js')).toEqual({ nodeArgs: [], env: {} });
    expect(runtimeOfStartScript('node --jitless dist/src/cli/main.js serve --dotenv')).toEqual({
      nodeArgs: ['--jitless'],
      env: {},
    });
    expect(
      runtimeOfStartScript(
        'A=1 B=x=y node --max-semi-space-size=8 --jitless dist/src/cli/serve.js',
      ),
    ).toEqual({ nodeArgs: ['--max-semi-space-size=8', '--jitless'], env: { A: '1', B: 'x=y' } });
    expect(() => runtimeOfStartScript('tsx src/cli/serve.ts')).toThrow(/does not run node/);
    expect(() => runtimeOfStartScript('node --x dist/a.js dist/b.js')).toThrow(/Node flags/);
    expect(() => runtimeOfStartScript('cd dist && node main.js')).toThrow(/cannot read/);
  });

  it('when a launch environment mixes settings and runtime variables, then only the runtime ones count', () => {
    const runtime = runtimeOf(['--max-semi-space-size=2'], {
      PATH: '/usr/bin',
      DATABASE_URL: 'postgres://x',
      WEBHOOK_SECRETS: 'secret',
      NODE_ENV: 'production',
      MALLOC_ARENA_MAX: '2',
      UV_THREADPOOL_SIZE: '8',
    });
    expect(runtime.env).toEqual({
      MALLOC_ARENA_MAX: '2',
      NODE_ENV: 'production',
      UV_THREADPOOL_SIZE: '8',
    });
  });

  it('when every server has the same flags and variables, then there is no difference', () => {
    const same = runtimeOf(['--max-semi-space-size=2'], { NODE_ENV: 'production' });
    expect(
      runtimeDifferences([
        { name: 'receiver', runtime: same },
        { name: 'hand-written', runtime: { ...same } },
        { name: 'bare', runtime: same },
      ]),
    ).toEqual([]);
  });

  it('when one server has another flag and another variable, then both are named', () => {
    const receiver = runtimeOf(['--max-semi-space-size=2'], { MALLOC_ARENA_MAX: '2' });
    const handWritten = runtimeOf([], { MALLOC_ARENA_MAX: '8' });
    expect(
      runtimeDifferences([
        { name: 'receiver', runtime: receiver },
        { name: 'hand-written', runtime: handWritten },
      ]),
    ).toEqual([
      'hand-written runs with Node flags "(none)", receiver with "--max-semi-space-size=2"',
      'hand-written runs with environment "MALLOC_ARENA_MAX=8", receiver with "MALLOC_ARENA_MAX=2"',
    ]);
  });
});
