import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Request, Response } from 'express';
import { Gauge } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../../src/lib/http/http-error.ts';
import { createMemoryBudget } from '../../../../src/receiver/http/memory-budget.ts';
import { abortBodyRead, rawBody } from '../../../../src/receiver/http/raw-body.ts';

/**
 * The body reader's side of eviction: a body being read can be stopped from outside, and its
 * bytes are back in the memory budget before the stop returns (the request that evicted it
 * reads next); a body on probation is held to its smaller limit.
 */

function reading(
  options: { budgetBytes?: number; contentLength?: number; probationLimit?: number } = {},
) {
  const gauge = new Gauge({ name: 'bytes', help: 'h', registers: [] });
  const budget = createMemoryBudget(options.budgetBytes ?? 1024 * 1024, gauge);
  const stream = new PassThrough();
  const req = Object.assign(stream, {
    complete: false,
    get: (name: string) =>
      name.toLowerCase() === 'content-length' && options.contentLength !== undefined
        ? String(options.contentLength)
        : undefined,
  }) as unknown as Request & PassThrough;
  const res = Object.assign(new EventEmitter(), { locals: {} }) as unknown as Response;
  const outcomes: unknown[] = [];
  rawBody({
    limitBytes: 512 * 1024,
    budget,
    probationLimit: () => options.probationLimit,
  })(req, res, (error?: unknown) => outcomes.push(error ?? 'body in'));
  const held = async () => (await gauge.get()).values[0]?.value ?? 0;
  return { req, res, outcomes, held };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('abortBodyRead', () => {
  it('when a body being read is aborted, then its bytes are released before the call returns and the error goes on', async () => {
    const { req, res, outcomes, held } = reading();
    req.write(Buffer.alloc(3000));
    await flush();
    expect(await held()).toBe(3000);
    const error = new HttpError('request-timeout', 'evicted');
    expect(abortBodyRead(res, error)).toBe(true);
    expect(await held()).toBe(0);
    expect(outcomes).toEqual([error]);
    // Once stopped, there is nothing left to abort, and later bytes are not read.
    expect(abortBodyRead(res, error)).toBe(false);
    req.write(Buffer.alloc(100));
    await flush();
    expect(await held()).toBe(0);
  });

  it('when the body is already in, then there is nothing to abort', async () => {
    const { req, res, outcomes } = reading();
    req.end(Buffer.from('{}'));
    await flush();
    expect(outcomes).toEqual(['body in']);
    expect(abortBodyRead(res, new HttpError('request-timeout', 'evicted'))).toBe(false);
    expect(outcomes).toEqual(['body in']);
  });
});

describe('a body on probation', () => {
  it('when it declares more than the probation limit, then it is refused with 503 before a byte is read', async () => {
    const { outcomes, held } = reading({ contentLength: 2000, probationLimit: 1000 });
    expect(outcomes).toHaveLength(1);
    expect((outcomes[0] as HttpError).status).toBe(503);
    expect(await held()).toBe(0);
  });

  it('when more than the probation limit arrives, then it is refused with 503 and its bytes released', async () => {
    const { req, outcomes, held } = reading({ probationLimit: 1000 });
    req.write(Buffer.alloc(600));
    await flush();
    expect(await held()).toBe(600);
    req.write(Buffer.alloc(600));
    await flush();
    expect((outcomes[0] as HttpError).status).toBe(503);
    expect(await held()).toBe(0);
  });
});
