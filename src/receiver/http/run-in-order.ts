import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs middleware one after another, as Express's router would, then `last`; the first error
 * goes to `next` (the app's error handler), and so does anything a step or `last` throws or
 * rejects with.
 */
export function runInOrder(
  steps: readonly RequestHandler[],
  req: Request,
  res: Response,
  next: NextFunction,
  last: () => Promise<void>,
): void {
  let index = 0;
  const step = (error?: unknown) => {
    if (error !== undefined && error !== null) {
      next(error);
      return;
    }
    const handler = steps[index];
    index += 1;
    try {
      if (handler === undefined) last().catch(next);
      else {
        const result = handler(req, res, step);
        // As Express 5's router: a step's rejected promise is its error.
        if (result instanceof Promise) {
          result.catch((error: unknown) => next(error ?? new Error('Rejected promise')));
        }
      }
    } catch (thrown) {
      next(thrown);
    }
  };
  step();
}
