import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Histogram } from 'prom-client';
import type { AnswerObserver } from '../../lib/http/error-envelope.ts';
import type { Metrics } from './metrics.ts';

const ACCEPTABLE_REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives every request an id (the load balancer's `X-Request-Id` when it sent a sane one and
 * TRUST_PROXY trusts it; anyone else could otherwise write their own ids into our logs), echoed
 * in the answer and written on every log line about the request, a start time for
 * `durationMs`, and the metrics the answer is recorded in.
 */
export function requestContext(metrics: Metrics): RequestHandler {
  const observeAnswer = answerLatency(metrics);
  return (req, res, next) => {
    res.locals.startedAt = performance.now();
    res.locals.observeAnswer = observeAnswer;
    const offered = req.headers['x-request-id'];
    const requestId =
      typeof offered === 'string' && ACCEPTABLE_REQUEST_ID.test(offered) && fromTrustedProxy(req)
        ? offered
        : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    next();
  };
}

/** Whether the direct peer is a proxy that Express's `trust proxy` setting believes. */
function fromTrustedProxy(req: Request): boolean {
  const trust = req.app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  return trust(req.socket.remoteAddress ?? '', 0);
}

/** Every answer's latency, by kind of route and status (sendEnvelope tells it). */
function answerLatency(metrics: Metrics): AnswerObserver {
  // Each series' child, made at its first answer: `labels()` makes a label object and a
  // closure at every call. Route kinds and statuses are a fixed set.
  const series = new Map<string, Map<number, Histogram.Internal<'route' | 'status'>>>();
  return (path, httpStatus, elapsedSeconds) => {
    const route = routeKind(path);
    let byStatus = series.get(route);
    if (byStatus === undefined) {
      byStatus = new Map();
      series.set(route, byStatus);
    }
    let child = byStatus.get(httpStatus);
    if (child === undefined) {
      child = metrics.requestDuration.labels(route, String(httpStatus));
      byStatus.set(httpStatus, child);
    }
    child.observe(elapsedSeconds);
  };
}

/** A fixed set of label values: a URL never mints a new series. */
function routeKind(path: string): string {
  if (path.startsWith('/webhooks/')) return 'webhook';
  if (path === '/healthz' || path === '/readyz') return path.slice(1);
  return 'other';
}
