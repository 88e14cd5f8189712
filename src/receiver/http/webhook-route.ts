import type { Request, RequestHandler, Response } from 'express';
import type { EventModel } from '../events/types.ts';
import type { Logger } from '../../lib/logger.ts';
import { findEventModel } from '../events/registry.ts';
import { isWellFormedEventName } from '../events/event-name.ts';
import {
  receiveDelivery,
  type DeliveryAnswer,
  type DeliveryDeps,
} from '../delivery/receive-delivery.ts';
import { unauthorised } from '../delivery/delivery-answers.ts';
import type { SecretMatcher } from '../../lib/secrets.ts';
import { sendEnvelope } from '../../lib/http/error-envelope.ts';
import type { Capture } from './capture-hook.ts';
import type { Metrics } from './metrics.ts';
import { closeConnectionAfterAnswer } from '../../lib/http/close-after-answer.ts';
import { notFound } from '../../lib/http/http-error.ts';
import { concurrencyLimit } from './in-flight-limit.ts';
import type { MemoryBudget } from './memory-budget.ts';
import { abortBodyRead, rawBody } from './raw-body.ts';
import { unverifiedBodies } from './unverified-bodies.ts';

const LOG_LEVEL: Record<DeliveryAnswer['outcome'], 'info' | 'warn' | 'error'> = {
  stored: 'info',
  duplicate: 'info',
  quarantined: 'warn',
  unauthorised: 'warn',
  'no-signing-key': 'error',
  'signature-unconfirmed': 'warn',
  error: 'error',
};

export type WebhookRouterDeps = DeliveryDeps & {
  /** True when the presented Authorisation value matches a configured secret. */
  secretMatches: SecretMatcher;
  /**
   * False when no secret is configured. Either way the signature, over the whole body, is the
   * only proof of the platform, so bodies are read the same way with or without a secret.
   */
  secretConfigured: boolean;
  bodyLimitBytes: number;
  bodyMemoryBudget: MemoryBudget;
  /** REQUEST_TIMEOUT_MS: a body must have arrived within it. */
  requestTimeoutMs?: number | undefined;
  /** Deliveries processed at once, from the signature on (their bodies are in). */
  maxInFlight: number;
  /** Bodies read at once before their signature is checked, whatever the secret. */
  maxUnverifiedBodies: number;
  /** How long a body being read is safe from eviction; default UNVERIFIED_GRACE_MS (1 s). */
  unverifiedGraceMs?: number | undefined;
  metrics: Metrics;
  /** Set with CAPTURE_DIR: keeps each authenticated delivery as a fixture file. */
  capture?: ((capture: Capture) => Promise<void>) | undefined;
  logger: Logger;
};

/**
 * `POST /webhooks/:eventName`. What needs no body comes first, so a request that fails it costs
 * no slot, no memory and no wait: route (404/405), shared secret (401, body never read), then an
 * unverified-body slot, the body (limit, memory budget, time), a delivery slot, and the delivery
 * pipeline from the signature on.
 */
export function webhookRoutes(deps: WebhookRouterDeps): WebhookRoutes {
  const inFlight = concurrencyLimit({
    max: deps.maxInFlight,
    gauge: deps.metrics.inFlightDeliveries,
    refusal: 'Too many deliveries in progress; retry later',
  });
  // The shared secret is no proof of the platform (anyone who has seen a delivery has it), so
  // with or without it nothing proves the sender until the signature is checked over the whole
  // body. Bodies are read in places of their own, which slow senders cannot keep from a genuine
  // delivery (unverified-bodies.ts), and a delivery slot is taken only once the body is in: slow
  // senders never hold one.
  const unverified = unverifiedBodies({
    max: deps.maxUnverifiedBodies,
    graceMs: deps.unverifiedGraceMs,
    gauge: deps.metrics.unverifiedBodiesInFlight,
    evicted: deps.metrics.unverifiedBodiesEvicted,
    refusal: 'Too many unverified request bodies in progress; retry later',
    stop(req, res, error) {
      // Answered (503) and the connection closes; its bytes are released before this
      // returns. A request whose body is not being read any more is answering already: cut.
      if (!abortBodyRead(res, error)) req.socket.destroy();
    },
  });
  const body = rawBody({
    limitBytes: deps.bodyLimitBytes,
    budget: deps.bodyMemoryBudget,
    timeoutMs: deps.requestTimeoutMs,
    probationLimit: unverified.probationLimit,
  });
  const readBody = [unverified.take, body, unverified.giveBack, inFlight.take];

  const answer = (
    req: Request,
    res: Response,
    delivery: DeliveryAnswer,
    name: string,
    model: EventModel | undefined,
    remoteAddress: string | null = req.ip ?? null,
  ) => {
    sendEnvelope(res, delivery.httpStatus, delivery.description, delivery.errors);
    deps.metrics.deliveries.add(1, model?.name ?? 'unmodelled', delivery.outcome);
    if (delivery.conflicts)
      deps.metrics.conflicts.add(delivery.conflicts, model?.name ?? 'unmodelled');
    // One object, filled in order (no spread of a throwaway object per optional field).
    const line: Record<string, unknown> = {
      requestId: res.locals.requestId,
      ...delivery.log,
      event: model?.name ?? name,
      outcome: delivery.outcome,
      status: delivery.httpStatus,
      durationMs: Math.round(performance.now() - (res.locals.startedAt as number)),
    };
    if (Buffer.isBuffer(req.body)) line.bodyBytes = req.body.length;
    line.remoteAddress = remoteAddress;
    if (delivery.error !== undefined) line.err = delivery.error;
    deps.logger[delivery.notable ? 'warn' : LOG_LEVEL[delivery.outcome]](
      line,
      delivery.outcome === 'error' ? 'delivery NOT stored' : 'delivery',
    );
  };

  /**
   * Check 2: the shared secret is a header, so it is checked before a byte of body is read.
   * False when it answered (401).
   */
  const secretHolds = (req: Request, res: Response, name: string): boolean => {
    if (deps.secretMatches(req.get('authorisation') ?? req.get('authorization'))) return true;
    // Whatever the client still sends is never read: the connection goes after the answer.
    closeConnectionAfterAnswer(req, res);
    answer(req, res, unauthorised('secret'), name, findEventModel(name));
    return false;
  };

  /** From the signature on, once the body is in. */
  const deliver = async (req: Request, res: Response, name: string) => {
    const model = findEventModel(name);
    // Express works the address out anew (X-Forwarded-For, trust proxy) at every read.
    const remoteAddress = req.ip ?? null;
    const delivery = await receiveDelivery(deps, {
      eventName: model?.name ?? name,
      model,
      rawBody: req.body as Buffer,
      headers: req.headers,
      requestId: res.locals.requestId as string,
      remoteAddress,
    });
    answer(req, res, delivery, name, model, remoteAddress);
    // After the answer: capture never delays or changes it (the writer logs its own failures;
    // anything else it lets through is logged here).
    deps
      .capture?.({
        eventName: name,
        rawBody: req.body as Buffer,
        headers: req.headers,
        httpStatus: delivery.httpStatus,
        outcome: delivery.outcome,
        ...(delivery.errors && { errorPaths: delivery.errors.map((error) => error.path) }),
      })
      .catch((error: unknown) => {
        deps.logger.warn({ err: error, event: name }, 'delivery capture not written');
      });
  };

  return {
    post: [
      knownShape,
      (req, res, next) => {
        if (secretHolds(req, res, req.params.eventName as string)) next();
      },
      ...readBody,
      (req, res) => deliver(req, res, req.params.eventName as string),
    ],
    otherMethod,
  };
}

/**
 * The route's handlers, mounted by the app on its own router (`app.post`, `app.all`): a nested
 * Router would add a second dispatch loop to every delivery, for nothing.
 */
export interface WebhookRoutes {
  /** `POST /webhooks/:eventName`, check by check. */
  readonly post: readonly RequestHandler[];
  /** Any other method on the same path: 405 in the envelope (404 for a malformed name). */
  readonly otherMethod: RequestHandler;
}

/** Where deliveries arrive. */
export const WEBHOOK_PATH = '/webhooks/:eventName';

/**
 * Check 1: a malformed event name is no route at all, before a byte of the body is read: on to
 * the next route (the same path's `all`, which answers 404 in the envelope).
 */
const knownShape: RequestHandler = (req, _res, next) => {
  next(isWellFormedEventName(req.params.eventName as string) ? undefined : 'route');
};

/** Check 1 for any method but POST: answered in the envelope, never Express's plain text. */
const otherMethod: RequestHandler = (req, res, next) => {
  if (!isWellFormedEventName(req.params.eventName as string)) {
    notFound(req, res, next);
    return;
  }
  res.setHeader('Allow', 'POST');
  sendEnvelope(res, 405, 'Only POST is accepted here');
};
