import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../logger.ts';

const ACCEPTABLE_REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives every request an id (the load balancer's `X-Request-Id` when it sent a sane one), a
 * start time for `durationMs`, and a logger that stamps the id on every line.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    res.locals.startedAt = performance.now();
    const offered = req.get('x-request-id');
    const requestId = offered && ACCEPTABLE_REQUEST_ID.test(offered) ? offered : randomUUID();
    res.locals.requestId = requestId;
    res.locals.log = logger.child({ requestId });
    res.setHeader('X-Request-Id', requestId);
    next();
  };
}
