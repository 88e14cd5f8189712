import type { Request, RequestHandler, Response } from 'express';
import type { Gauge } from 'prom-client';
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
  gauge: Gauge;
  refusal: string;
}): ConcurrencyLimit {
  let inUse = 0;
  // Each response keeps its own release under this limit's key: a WeakMap entry per request
  // would cost the garbage collector more (ephemerons) for the same look-up.
  const held = Symbol('concurrency slot');
  type Holder = Response & { [held]?: (() => void) | undefined };
  return {
    take(_req: Request, res: Response, next) {
      if (inUse >= options.max) {
        next(new HttpError('overloaded', options.refusal));
        return;
      }
      inUse += 1;
      options.gauge.set(inUse);
      let given = false;
      const release = () => {
        if (given) return;
        given = true;
        (res as Holder)[held] = undefined;
        inUse -= 1;
        options.gauge.set(inUse);
      };
      (res as Holder)[held] = release;
      res.on('close', release); // 'close' comes once; 'on' spares the once-wrapper per request
      next();
    },
    giveBack(_req, res, next) {
      (res as Holder)[held]?.();
      next();
    },
  };
}
