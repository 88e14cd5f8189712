import type { RequestHandler } from 'express';
import type { Metrics } from '../metrics.ts';
import { closeConnectionAfterAnswer } from './close-after-answer.ts';
import { sendEnvelope } from './envelope.ts';

/**
 * At most `max` deliveries are processed at once by this instance. Beyond that the answer is a
 * quick 503 (the platform retries in 30 s, and the balancer can try another instance) instead of
 * a queue that grows until everything times out. The body of a refused request is not read.
 */
export function inFlightLimit(max: number, metrics: Metrics): RequestHandler {
  let inFlight = 0;
  return (req, res, next) => {
    if (inFlight >= max) {
      metrics.deliveries.inc({ event: 'any', outcome: 'overloaded' });
      res.setHeader('Retry-After', '1');
      closeConnectionAfterAnswer(req, res);
      sendEnvelope(res, 503, 'Too many deliveries in progress; retry later');
      return;
    }
    inFlight += 1;
    metrics.inFlightDeliveries.set(inFlight);
    res.once('close', () => {
      inFlight -= 1;
      metrics.inFlightDeliveries.set(inFlight);
    });
    next();
  };
}
