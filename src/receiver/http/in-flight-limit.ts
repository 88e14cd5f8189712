import type { Request, RequestHandler, Response } from 'express';
import type { Level } from './counted-at-scrape.ts';
import { HttpError } from '../../lib/http/http-error.ts';

export interface ConcurrencyLimit {
  /** Takes a slot, or refuses with a quick 503 (Retry-After, body never read) when none is free. */
  readonly take: RequestHandler;
  /** Gives this request's slot back before its answer (e.g. once its body has been read). */
  readonly giveBack: RequestHandler;
}

/**
 * At most `max` requests hold a slot of this limit at once. Beyond that the answer is a quick
 * 503 (the platform retries in 30 s, and the balancer can try another instance) instead of a
 * queue that grows until everything times out. A slot is given back when the request's answer
 * is done or its connection goes, or earlier through `giveBack`, whichever comes first.
 */
export function concurrencyLimit(options: {
  max: number;
  gauge: Level;
  refusal: string;
}): ConcurrencyLimit {
  let inUse = 0;
  // Each request holding a slot is marked under this limit's key in its `res.locals` (a property
  // of the response itself would cost V8 a new hidden class per request), and one listener,
  // shared by every request, gives the slot back: no closure, WeakMap entry (an ephemeron the
  // garbage collector must trace) or once-wrapper per request.
  const held = Symbol('concurrency slot');
  type Locals = Record<symbol, boolean | undefined>;
  function release(this: Response) {
    const locals = this.locals as Locals;
    if (locals[held] !== true) return;
    locals[held] = false;
    inUse -= 1;
    options.gauge.set(inUse);
  }
  return {
    take(_req: Request, res: Response, next) {
      if (inUse >= options.max) {
        next(new HttpError('overloaded', options.refusal));
        return;
      }
      inUse += 1;
      options.gauge.set(inUse);
      (res.locals as Locals)[held] = true;
      res.on('close', release); // 'close' comes once; 'on' spares the once-wrapper per request
      next();
    },
    giveBack(_req, res, next) {
      release.call(res);
      next();
    },
  };
}
