import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs middleware one after another, as Express's router would, then `last`; the first error
 * goes to `next` (the app's error handler), and so does anything `last` throws or rejects with.
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
      else void handler(req, res, step);
    } catch (thrown) {
      next(thrown);
    }
  };
  step();
}
