import { describe, expect, it } from 'vitest';
import {
  createCachedRead,
  type ReadResult,
} from '../../../src/operations/attention/cached-read.ts';

/** A read the test settles by hand, counting how often it was started. */
function controlledRead() {
  const pending: { resolve: (v: number) => void; reject: (e: Error) => void }[] = [];
  return {
    started: () => pending.length,
    read: () =>
      new Promise<number>((resolve, reject) => {
        pending.push({ resolve, reject });
      }),
    settle: (index: number, value: number | Error) => {
      const p = pending[index]!;
      if (value instanceof Error) p.reject(value);
      else p.resolve(value);
    },
  };
}

describe('a read shared by the gauges of a scrape', () => {
  it('when several ask at once, then the source is read once and all get its answer; within maxAge it is not read again', async () => {
    const source = controlledRead();
    let clock = 0;
    const results: ReadResult<number>[] = [];
    const current = createCachedRead({
      read: source.read,
      maxAgeMs: 5000,
      deadlineMs: 2000,
      now: () => clock,
      onResult: (r) => results.push(r),
    });
    const asked = [current(), current(), current()];
    source.settle(0, 7);
    expect(await Promise.all(asked)).toEqual([
      { ok: true, value: 7 },
      { ok: true, value: 7 },
      { ok: true, value: 7 },
    ]);
    clock = 4999;
    expect(await current()).toEqual({ ok: true, value: 7 });
    expect(source.started()).toBe(1);
    expect(results).toHaveLength(1);

    clock = 5000;
    const next = current();
    source.settle(1, 8);
    expect(await next).toEqual({ ok: true, value: 8 });
    expect(source.started()).toBe(2);
  });

  it('when the read fails, then the failure is the answer until maxAge has passed', async () => {
    const source = controlledRead();
    let clock = 0;
    const current = createCachedRead({
      read: source.read,
      maxAgeMs: 5000,
      deadlineMs: 2000,
      now: () => clock,
    });
    const first = current();
    source.settle(0, new Error('connection refused'));
    expect(await first).toMatchObject({ ok: false });
    clock = 1000;
    expect(await current()).toMatchObject({ ok: false });
    expect(source.started()).toBe(1);
  });

  it('when the read outlives its deadline, then the answer is a failure, and no second read starts until the first settles', async () => {
    const source = controlledRead();
    let clock = 0;
    const results: ReadResult<number>[] = [];
    const current = createCachedRead({
      read: source.read,
      maxAgeMs: 0,
      deadlineMs: 20,
      now: () => clock,
      onResult: (r) => results.push(r),
    });
    const first = await current();
    expect(first).toMatchObject({ ok: false });
    expect(String((first as { error: unknown }).error)).toContain('no answer within 20 ms');

    clock = 10_000;
    expect(await current()).toMatchObject({ ok: false });
    expect(source.started()).toBe(1);
    expect(results).toHaveLength(2);

    source.settle(0, 9);
    await new Promise((resolve) => setImmediate(resolve));
    clock = 20_000;
    const after = current();
    expect(source.started()).toBe(2);
    source.settle(1, 10);
    expect(await after).toEqual({ ok: true, value: 10 });
  });
});
