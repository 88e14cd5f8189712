import { describe, expect, it } from 'vitest';
import { runtimeDifferences, runtimeOf, sharedRuntime } from '../runtime.ts';

describe('runtime parity', () => {
  it('when the production preset is chosen, then every server gets its flag and MALLOC_ARENA_MAX', () => {
    expect(sharedRuntime('production', undefined)).toEqual({
      nodeArgs: ['--max-semi-space-size=2'],
      env: { MALLOC_ARENA_MAX: '2' },
    });
    expect(sharedRuntime('node-defaults', ' --cpu-prof  --stack-size=900 ')).toEqual({
      nodeArgs: ['--cpu-prof', '--stack-size=900'],
      env: {},
    });
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
