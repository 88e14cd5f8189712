import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { Counter, Gauge } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HttpError } from '../../../../src/lib/http/http-error.ts';
import {
  PROBATION_BODY_BYTES,
  unverifiedBodies,
  type UnverifiedBodiesOptions,
} from '../../../../src/receiver/http/unverified-bodies.ts';

/**
 * The places where bodies are read before their signature is checked, on a clock the test
 * moves: who gets a slot, who is evicted (and when never), probation and its bounds.
 */

const GRACE_MS = 1000;

interface Fake {
  readonly name: string;
  readonly req: Request;
  readonly res: Response & EventEmitter;
}

let clock = 0;
let stopped: { name: string; status: number }[];
let made = 0;

beforeEach(() => {
  vi.useFakeTimers();
  clock = 0;
  stopped = [];
  made = 0;
});
afterEach(() => {
  vi.useRealTimers();
});

function fake(): Fake {
  made += 1;
  const name = `r${made}`;
  const res = Object.assign(new EventEmitter(), { name }) as unknown as Response & EventEmitter;
  return { name, req: { name } as unknown as Request, res };
}

function setUp(options: Partial<UnverifiedBodiesOptions> = {}) {
  const gauge = new Gauge({ name: 'bodies', help: 'h', registers: [] });
  const evicted = new Counter({ name: 'evicted', help: 'h', registers: [] });
  const limit = unverifiedBodies({
    max: 2,
    graceMs: GRACE_MS,
    gauge,
    evicted,
    refusal: 'Too many; retry later',
    stop(_req, res, error: HttpError) {
      stopped.push({ name: (res as unknown as { name: string }).name, status: error.status });
      // As the real body reader does: the request answers and its response closes.
      res.emit('close');
    },
    now: () => clock,
    ...options,
  });
  /** Takes a place for a new request; the status it was refused with at once, else undefined. */
  const arrive = () => {
    const request = fake();
    let refused: number | undefined;
    limit.take(request.req, request.res, (error?: unknown) => {
      refused = (error as HttpError | undefined)?.status;
    });
    return { ...request, refused };
  };
  const done = (request: Fake) =>
    limit.giveBack(request.req, request.res, () => {
      /* next */
    });
  const reading = async () => (await gauge.get()).values[0]?.value;
  const evictions = async () => (await evicted.get()).values[0]?.value ?? 0;
  return { limit, arrive, done, reading, evictions };
}

describe('unverifiedBodies', () => {
  it('when every slot is held past the grace period, then a newcomer evicts the one reading longest (503, retried by the platform) and takes its slot', async () => {
    const { limit, arrive, reading, evictions } = setUp();
    const first = arrive();
    clock = 10;
    arrive();
    clock = 10 + GRACE_MS + 1; // both past the grace
    const newcomer = arrive();
    expect(newcomer.refused).toBeUndefined();
    expect(stopped).toEqual([{ name: first.name, status: 503 }]);
    expect(await evictions()).toBe(1);
    expect(await reading()).toBe(2);
    expect(limit.probationLimit(newcomer.res)).toBeUndefined(); // in a slot, not on probation
  });

  it('when the slot holders are within the grace period, then none is evicted: the newcomer reads on probation and gets 503 if its body is not in by the end of the grace', async () => {
    const { limit, arrive, reading, evictions } = setUp();
    arrive();
    arrive();
    clock = GRACE_MS; // exactly the grace: still protected
    const newcomer = arrive();
    expect(newcomer.refused).toBeUndefined();
    expect(limit.probationLimit(newcomer.res)).toBe(PROBATION_BODY_BYTES);
    expect(await reading()).toBe(3);
    vi.advanceTimersByTime(GRACE_MS - 1);
    expect(stopped).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(stopped).toEqual([{ name: newcomer.name, status: 503 }]);
    expect(await evictions()).toBe(0);
    expect(await reading()).toBe(2);
  });

  it('when a body on probation is in within the grace period, then it is never refused', async () => {
    const { arrive, done, reading } = setUp();
    arrive();
    arrive();
    const newcomer = arrive();
    vi.advanceTimersByTime(5);
    done(newcomer);
    expect(await reading()).toBe(2);
    vi.advanceTimersByTime(10 * GRACE_MS);
    expect(stopped).toEqual([]);
  });

  it('when every probation place is taken, then the oldest on probation gives way (503) to the newcomer', async () => {
    const { arrive, reading } = setUp({ probation: 2 });
    arrive();
    arrive();
    const onProbation = [arrive(), arrive()];
    const newcomer = arrive();
    expect(newcomer.refused).toBeUndefined();
    expect(stopped).toEqual([{ name: onProbation[0]?.name, status: 503 }]);
    expect(await reading()).toBe(4); // 2 slots, 2 places
  });

  it('when there are no probation places, then the newcomer gets the quick 503 and holds nothing', async () => {
    const { arrive, reading } = setUp({ probation: 0 });
    arrive();
    arrive();
    const newcomer = arrive();
    expect(newcomer.refused).toBe(503);
    expect(stopped).toEqual([]);
    expect(await reading()).toBe(2);
  });

  it('when a slot is given back or its connection closes, then it is free again, once only', async () => {
    const { arrive, done, reading } = setUp();
    const first = arrive();
    const second = arrive();
    done(first);
    done(first);
    first.res.emit('close');
    expect(await reading()).toBe(1);
    second.res.emit('close');
    expect(await reading()).toBe(0);
    const third = arrive();
    const fourth = arrive();
    expect([third.refused, fourth.refused]).toEqual([undefined, undefined]);
    expect(await reading()).toBe(2);
  });

  it('when a holder past the grace period is evicted, then the holders behind it keep their slots until they pass it too', async () => {
    const { arrive, evictions } = setUp();
    const first = arrive();
    clock = 500;
    const second = arrive();
    clock = GRACE_MS + 1; // only the first is past the grace
    arrive();
    expect(stopped.map((stop) => stop.name)).toEqual([first.name]);
    arrive(); // the second (500 ms in) and the third are within it: probation
    expect(stopped.map((stop) => stop.name)).toEqual([first.name]);
    clock = 500 + GRACE_MS + 1;
    arrive();
    expect(stopped.map((stop) => stop.name)).toEqual([first.name, second.name]);
    expect(await evictions()).toBe(2);
  });
});
