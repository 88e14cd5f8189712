import { Router, type RequestHandler } from 'express';
import type { Metrics } from '../metrics.ts';

/** Records every request's duration by route kind and status (route is a fixed set of names). */
export function requestMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const stop = metrics.requestDuration.startTimer();
    res.on('finish', () => stop({ route: routeKind(req.path), status: String(res.statusCode) }));
    next();
  };
}

function routeKind(path: string): string {
  if (path.startsWith('/webhooks/')) return 'webhook';
  if (path === '/healthz' || path === '/readyz' || path === '/metrics') return path.slice(1);
  return 'other';
}

/** `GET /metrics` in the Prometheus text format. */
export function metricsRouter(metrics: Metrics): Router {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });
  return router;
}
