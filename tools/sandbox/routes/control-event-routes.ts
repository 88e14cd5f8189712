import { Router, type Request } from 'express';
import type { SandboxDeps } from '../services/deps.ts';
import { sendError, sendOk } from '../core/envelope.ts';
import { toCents } from '../core/money.ts';
import { receivePayment } from '../services/payments.ts';
import { sydneyLocalIso } from '../../../src/lib/sydney-time.ts';
import type { Fields } from '../state/types.ts';
import { reportEntry } from './report-entry.ts';
import { rejectionRecord } from '../webhooks/payloads.ts';
import { paymentControlSchema, rejectionControlSchema } from '../validation/control-schemas.ts';
import { validate } from '../validation/patterns.ts';

/**
 * `POST /sandbox/payments` and `POST /sandbox/rejections`: make something happen on the
 * platform. Each answers what was created and the Webhookids sent; with `?wait=true` it first
 * waits (at most `waitLimitMs`) until those deliveries are Sent or Error, and adds how each went.
 */
export function controlEventRoutes(deps: SandboxDeps): Router {
  const router = Router();
  const { store, clock, notifier, engine } = deps;

  const deliveries = async (req: Request, webhookIds: string[]) => {
    if (req.query.wait !== 'true') return {};
    await engine.settled(webhookIds, deps.waitLimitMs);
    const ids = new Set(webhookIds);
    return {
      deliveries: store.state.notifications.filter((n) => ids.has(n.webhookId)).map(reportEntry),
    };
  };

  router.post('/sandbox/payments', async (req, res) => {
    const body = validate(paymentControlSchema, req.body);
    if (!body.ok) return sendError(res, 400, 'Validation failed', { problems: body.problems });
    const { event, amount, refundAmount, DateTime, ...chosen } = body.value;
    const received = receivePayment(deps, {
      event,
      amountCents: toCents(amount),
      ...(refundAmount !== undefined && { refundCents: toCents(refundAmount) }),
      ...(DateTime !== undefined && { dateTime: DateTime }),
      chosen: chosen as Fields,
    });
    if (!received) return sendError(res, 400, 'The sandbox holds as many payments as it may');
    const { payment, webhookIds } = received;
    sendOk(res, {
      payment: {
        ...payment.payload,
        ...(payment.paymentInitiationUid !== undefined && {
          paymentInitiationUid: payment.paymentInitiationUid,
        }),
      },
      webhookIds,
      ...(await deliveries(req, webhookIds)),
    });
  });

  router.post('/sandbox/rejections', async (req, res) => {
    const body = validate(rejectionControlSchema, req.body);
    if (!body.ok) return sendError(res, 400, 'Validation failed', { problems: body.problems });
    const dateTime = sydneyLocalIso(clock.now().getTime());
    const records = body.value.records.map(({ amount, ...chosen }) =>
      rejectionRecord(store.ids.next(), toCents(amount), dateTime, chosen as Fields),
    );
    const webhookIds = notifier.notify(
      body.value.event,
      body.value.singleObject ? records[0]! : records,
    );
    sendOk(res, { records, webhookIds, ...(await deliveries(req, webhookIds)) });
  });
  return router;
}
