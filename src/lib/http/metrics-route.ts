import { Router } from 'express';
import type { Registry } from 'prom-client';

/** `GET /metrics` in the Prometheus text format. */
export function metricsRouter(registry: Registry): Router {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', registry.contentType);
    res.send(await registry.metrics());
  });
  return router;
}
