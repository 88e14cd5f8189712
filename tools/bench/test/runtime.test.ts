import { describe, expect, it } from 'vitest';
import { describeRuntime, runtimeOfStartScript } from '../runtime.ts';

describe('runtime parity', () => {
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

  it('when the runtime is reported, then it reads as the start of start:prod', () => {
    const runtime = runtimeOfStartScript(
      'MALLOC_ARENA_MAX=2 node --max-semi-space-size=2 dist/src/cli/main.js serve',
    );
    expect(describeRuntime(runtime)).toBe('MALLOC_ARENA_MAX=2 node --max-semi-space-size=2');
  });
});
