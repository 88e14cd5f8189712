import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { runInOrder } from '../../../src/receiver/http/run-in-order.ts';

/** Runs `steps` then a `last` that records itself; resolves with what reached `next`. */
function run(steps: RequestHandler[]) {
  const reached: string[] = [];
  return new Promise<{ error: unknown; reached: string[] }>((resolve) => {
    const next: NextFunction = (error?: unknown) => resolve({ error, reached });
    runInOrder(steps, {} as Request, {} as Response, next, () => {
      reached.push('last');
      resolve({ error: undefined, reached });
      return Promise.resolve();
    });
  });
}

describe('runInOrder', () => {
  it('when every step calls next, then `last` runs', async () => {
    const pass: RequestHandler = (_req, _res, next) => next();
    expect(await run([pass, pass])).toEqual({ error: undefined, reached: ['last'] });
  });

  it('when a step throws, then its error goes to next and `last` never runs', async () => {
    const boom = new Error('thrown');
    const fail: RequestHandler = () => {
      throw boom;
    };
    expect(await run([fail])).toEqual({ error: boom, reached: [] });
  });

  it("when a step's promise rejects, then its error goes to next, as with Express's router", async () => {
    const boom = new Error('rejected');
    const fail: RequestHandler = () => Promise.reject(boom);
    expect(await run([fail])).toEqual({ error: boom, reached: [] });
  });
});
