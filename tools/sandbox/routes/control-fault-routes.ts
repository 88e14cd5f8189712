import { Router } from 'express';
import type { SandboxDeps } from '../services/deps.ts';
import { sendError, sendOk } from '../core/envelope.ts';
import { faultControlSchema } from '../validation/control-schemas.ts';
import { validate } from '../validation/patterns.ts';

/** Faults (`/sandbox/faults`) and the delivery log (`/sandbox/deliveries`). */
export function controlFaultRoutes(deps: SandboxDeps): Router {
  const router = Router();
  const { faults, keys, store } = deps;

  router.post('/sandbox/faults', async (req, res) => {
    const body = validate(faultControlSchema, req.body);
    if (!body.ok) return sendError(res, 400, 'Validation failed', { problems: body.problems });
    const fault = body.value;
    if (fault.kind === 'rotate-key') {
      await keys.rotate();
      return sendOk(res, { kind: fault.kind, fingerprint: keys.fingerprint() });
    }
    const armed = {
      kind: fault.kind,
      remaining: fault.count,
      status: fault.status,
      ...(fault.path !== undefined && { path: fault.path }),
      ...(fault.kind === 'after-action' && { answer: fault.answer }),
    };
    if (!faults.arm(armed))
      return sendError(res, 400, 'Too many faults armed; DELETE /sandbox/faults first');
    sendOk(res, { ...armed, armed: faults.list() });
  });
  router.get('/sandbox/faults', (_req, res) => sendOk(res, { armed: faults.list() }));
  router.delete('/sandbox/faults', (_req, res) => {
    faults.clear();
    sendOk(res, { armed: [] });
  });

  /** Every notification kept (newest last) with each attempt and what the subscriber answered. */
  router.get('/sandbox/deliveries', (req, res) => {
    const webhookId = typeof req.query.webhookId === 'string' ? req.query.webhookId : undefined;
    const eventName = typeof req.query.eventName === 'string' ? req.query.eventName : undefined;
    const deliveries = store.state.notifications
      .filter(
        (n) =>
          (webhookId === undefined || n.webhookId === webhookId) &&
          (eventName === undefined || n.eventName === eventName),
      )
      .slice(-1000)
      .map(({ body, ...rest }) => ({ ...rest, body: JSON.parse(body) as unknown }));
    sendOk(res, { deliveries });
  });
  return router;
}
