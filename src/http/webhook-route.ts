import { Router, type RequestHandler } from 'express';
import type { Logger } from '../logger.ts';
import { findEventModel, isWellFormedEventName } from '../events/registry.ts';
import {
  receiveDelivery,
  type DeliveryAnswer,
  type DeliveryDeps,
} from '../delivery/receive-delivery.ts';
import { sendEnvelope } from './envelope.ts';
import type { Capture } from '../capture/capture-writer.ts';
import type { Metrics } from '../metrics.ts';
import { inFlightLimit } from './in-flight-limit.ts';
import { rawBody } from './raw-body.ts';

const LOG_LEVEL: Record<DeliveryAnswer['outcome'], 'info' | 'warn' | 'error'> = {
  stored: 'info',
  duplicate: 'info',
  quarantined: 'warn',
  unauthorised: 'warn',
  'no-signing-key': 'error',
  error: 'error',
};

/** `POST /webhooks/:eventName`: route check, raw body, then the delivery pipeline. */
export function webhookRouter(
  deps: DeliveryDeps & {
    bodyLimitBytes: number;
    maxInFlight: number;
    metrics: Metrics;
    /** Set with CAPTURE_DIR: keeps each authenticated delivery as a fixture file. */
    capture?: ((capture: Capture) => Promise<void>) | undefined;
    logger: Logger;
  },
): Router {
  const router = Router();
  router.post(
    '/webhooks/:eventName',
    knownShape,
    inFlightLimit(deps.maxInFlight, deps.metrics),
    rawBody(deps.bodyLimitBytes),
    async (req, res) => {
      const name = req.params.eventName as string;
      const model = findEventModel(name);
      const remoteAddress = req.ip ?? null;
      const answer = await receiveDelivery(deps, {
        eventName: model?.name ?? name,
        model,
        rawBody: req.body as Buffer,
        headers: req.headers,
        requestId: res.locals.requestId as string,
        remoteAddress,
      });
      sendEnvelope(res, answer.httpStatus, answer.description, answer.errors);
      deps.metrics.deliveries.inc({ event: model?.name ?? 'unmodelled', outcome: answer.outcome });
      if (answer.conflicts)
        deps.metrics.conflicts.inc({ event: model?.name ?? 'unmodelled' }, answer.conflicts);
      // After the answer: capture never delays or changes it (the writer never throws).
      void deps.capture?.({
        eventName: name,
        rawBody: req.body as Buffer,
        headers: req.headers,
        httpStatus: answer.httpStatus,
        outcome: answer.outcome,
        ...(answer.errors && { errorPaths: answer.errors.map((error) => error.path) }),
      });
      deps.logger[answer.notable ? 'warn' : LOG_LEVEL[answer.outcome]](
        {
          requestId: res.locals.requestId,
          ...answer.log,
          event: model?.name ?? name,
          outcome: answer.outcome,
          status: answer.httpStatus,
          durationMs: Math.round(performance.now() - (res.locals.startedAt as number)),
          bodyBytes: (req.body as Buffer).length,
          remoteAddress,
          ...(answer.error !== undefined && { err: answer.error }),
        },
        answer.outcome === 'error' ? 'delivery NOT stored' : 'delivery',
      );
    },
  );
  return router;
}

/** Check 1: a malformed event name is no route at all, before a byte of the body is read. */
const knownShape: RequestHandler = (req, _res, next) => {
  next(isWellFormedEventName(req.params.eventName as string) ? undefined : 'router');
};
