import { describe, expect, it } from 'vitest';
import { NotDone } from '../../../src/lib/command-line/errors.ts';
import { abandonable, type Abandonment } from '../abandonable.ts';
import { toolFailure } from '../run-tool.ts';
import { Interrupted, Skipped } from '../tool-errors.ts';

/** A run that never ends, given up on `trigger`; what happened, in order. */
function neverEnding(timeLimitMs?: number) {
  const events: string[] = [];
  const outcome = abandonable(() => new Promise<never>(() => {}), {
    cleanUp: async () => {
      await Promise.resolve();
      events.push('cleaned up');
    },
    announce: (why: Abandonment) => events.push(`announced ${why}`),
    ...(timeLimitMs !== undefined && { timeLimitMs }),
  }).catch((error: unknown) => {
    events.push('gave up');
    return error;
  });
  return { events, outcome };
}

describe('abandonable', () => {
  it('when the run ends, then its value is the answer and no signal is listened for any more', async () => {
    const listening = () => [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    const before = listening();
    expect(
      await abandonable(() => Promise.resolve(42), { cleanUp: async () => {}, announce: () => {} }),
    ).toBe(42);
    await expect(
      abandonable(() => Promise.reject(new Error('boom')), {
        cleanUp: async () => {},
        announce: () => {},
        timeLimitMs: 60_000,
      }),
    ).rejects.toThrow('boom');
    expect(listening()).toEqual(before);
  });

  it('when SIGINT or SIGTERM comes, then the run is given up after the cleanup, with 130 or 143', async () => {
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      const { events, outcome } = neverEnding();
      process.emit(signal);
      const error = await outcome;
      expect(events).toEqual([`announced ${signal}`, 'cleaned up', 'gave up']);
      expect(error).toBeInstanceOf(Interrupted);
      expect(toolFailure(error, 'run failed')).toEqual({ code, text: '' });
    }
  });

  it('when the time limit passes, then the run is given up after the cleanup, not done', async () => {
    const { events, outcome } = neverEnding(10);
    const error = await outcome;
    expect(events).toEqual(['announced time limit', 'cleaned up', 'gave up']);
    expect(error).toBeInstanceOf(NotDone);
    expect(toolFailure(error, 'run failed').code).toBe(1);
  });
});

describe('toolFailure', () => {
  it('when a run is skipped, then the code is 3 and the text says so', () => {
    expect(toolFailure(new Skipped('nginx is not installed'), 'run failed')).toEqual({
      code: 3,
      text: 'SKIPPED: nginx is not installed',
    });
  });
});
