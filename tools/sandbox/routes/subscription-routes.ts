import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import type { SandboxDeps } from '../services/deps.ts';
import { sendError, sendOk } from '../core/envelope.ts';
import { sydneyDay, sydneyLocalIso } from '../../../src/lib/sydney-time.ts';
import { publicNotificationsJson } from './delivery-report-public.ts';
import { reportEntry } from './report-entry.ts';
import { validate } from '../validation/patterns.ts';
import {
  deliveryReportSchema,
  subscriptionSchema,
  webhookIdSchema,
} from '../validation/subscription-schema.ts';

/**
 * The platform's public subscription API: create, the delivery report, resend. The public
 * dialect answers create and the report in the public reference's types.
 */
export function subscriptionRoutes(deps: SandboxDeps): Router {
  const router = Router();
  const { store, clock, notifier } = deps;

  router.post('/subscriptions/v1/create', (req, res) => {
    const body = validate(subscriptionSchema, req.body);
    if (!body.ok) return sendError(res, 400, 'Validation failed', { problems: body.problems });
    const { eventName, targetUrl, subscriptionStatus, securityToken } = body.value;
    const existing = store.state.subscriptions.find(
      (s) => s.eventName === eventName && s.targetUrl === targetUrl,
    );
    if (existing) {
      return sendError(res, 400, 'This event is already subscribed to this URL', {
        status: 'WebhookAlreadySubscribed',
      });
    }
    const subscription = {
      subscriptionId: randomUUID(),
      // The public reference's integer id; unique across runs, like the Webhookids (ids.ts).
      id: store.ids.next(),
      eventName,
      targetUrl,
      subscriptionStatus,
      ...(securityToken !== undefined && { securityToken }),
      createdAtMs: clock.now().getTime(),
    };
    if (!store.add('subscriptions', subscription))
      return sendError(res, 400, 'Too many subscriptions');
    // The token is a secret: never answered back.
    if (deps.dialect === 'public') {
      return sendOk(res, {
        id: subscription.id,
        dateTime: sydneyLocalIso(subscription.createdAtMs),
        eventName,
        targetUrl,
      });
    }
    sendOk(res, {
      subscriptionId: subscription.subscriptionId,
      eventName,
      targetUrl,
      subscriptionStatus,
    });
  });

  router.get('/subscriptions/v1/report/:day', (req, res) => {
    const query = validate(deliveryReportSchema, { ...req.query, day: req.params.day });
    if (!query.ok) return sendError(res, 400, 'Validation failed', { problems: query.problems });
    const { day, skip = 0, take = 1000 } = query.value;
    const notifications = store.state.notifications
      .filter((n) => sydneyDay(n.createdAtMs) === day)
      .slice(skip, skip + take)
      .map(reportEntry);
    if (deps.dialect === 'public')
      return sendOk(res, {}, { notifications: publicNotificationsJson(notifications) });
    sendOk(res, { notifications });
  });

  router.post('/subscriptions/v2/resend/:webhookId', (req, res) => {
    const id = validate(webhookIdSchema, req.params.webhookId);
    if (!id.ok)
      return sendError(res, 400, 'Validation failed', {
        problems: id.problems.map((p) => `WebhookId: ${p}`),
      });
    if (!notifier.resend(id.value))
      return sendError(res, 400, `No notification with WebhookId ${id.value}`);
    sendOk(res);
  });
  return router;
}
