import { Router } from 'express';
import type { SandboxDeps } from '../services/deps.ts';
import { sendError, sendOk } from '../core/envelope.ts';
import { toCents } from '../core/money.ts';
import { createWallet, walletDetails } from '../services/wallets.ts';
import {
  clockControlSchema,
  payIdControlSchema,
  walletControlSchema,
} from '../validation/control-schemas.ts';
import { validate } from '../validation/patterns.ts';

/** `POST /sandbox/wallets`, `/sandbox/payids`, `/sandbox/clock`: set the scene. */
export function controlStateRoutes(deps: SandboxDeps): Router {
  const router = Router();
  const { store, clock } = deps;

  router.post('/sandbox/wallets', (req, res) => {
    const body = validate(walletControlSchema, req.body);
    if (!body.ok) return sendError(res, 400, 'Validation failed', { problems: body.problems });
    const { balance, isOnHold, isClosed, isStolen, isRegistered, ...rest } = body.value;
    const flags = { isOnHold, isClosed, isStolen, isRegistered };
    const wallet = createWallet(deps, {
      ...rest,
      balanceCents: balance === undefined ? 0 : toCents(balance),
      flags: Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)),
    });
    if (!wallet) return sendError(res, 400, 'The sandbox holds as many wallets as it may');
    sendOk(res, { ...walletDetails(wallet), pin: wallet.pin });
  });

  router.post('/sandbox/payids', (req, res) => {
    const body = validate(payIdControlSchema, req.body);
    if (!body.ok) return sendError(res, 400, 'Validation failed', { problems: body.problems });
    const payId = body.value.payId.toLowerCase();
    if (store.state.payIds.some((p) => p.payId === payId))
      return sendError(res, 400, 'PayID already registered');
    const now = clock.now().getTime();
    const record = { ...body.value, payId, registeredAtMs: now, updatedAtMs: now };
    if (!store.add('payIds', record))
      return sendError(res, 400, 'The sandbox holds as many PayIDs as it may');
    sendOk(res, { ...record, registrationDateTime: new Date(now).toISOString() });
  });

  router.post('/sandbox/clock', (req, res) => {
    const body = validate(clockControlSchema, req.body);
    if (!body.ok) return sendError(res, 400, 'Validation failed', { problems: body.problems });
    clock.advance(body.value.seconds);
    store.state.clockOffsetMs = clock.offsetMs();
    store.changed();
    sendOk(res, { now: clock.now().toISOString(), offsetSeconds: clock.offsetMs() / 1000 });
  });
  return router;
}
