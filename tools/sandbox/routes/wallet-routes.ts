import { Router } from 'express';
import type { SandboxDeps } from '../deps.ts';
import { sendError, sendOk } from '../envelope.ts';
import { searchWallets, updateWallet, walletDetails } from '../services/wallets.ts';
import { validate } from '../validation/patterns.ts';
import { walletSearchSchema, walletUpdateSchema } from '../validation/wallet-schemas.ts';

/** mWallet search and update; errors carry `errorCode`. */
export function walletRoutes(deps: SandboxDeps): Router {
  const router = Router();
  router.get('/mWallet/v1/search', (req, res) => {
    const query = validate(walletSearchSchema, req.query);
    if (!query.ok) return sendError(res, 400, 'Validation failed', { problems: query.problems });
    const identifier = query.value.clientUniqueIdentifier ?? query.value.identifier;
    sendOk(res, {
      mWallets: searchWallets(deps.store.state.wallets, identifier).map(walletDetails),
    });
  });
  router.post('/mWallet/v1/update', (req, res) => {
    const body = validate(walletUpdateSchema, req.body);
    if (!body.ok) return sendError(res, 400, 'Validation failed', { problems: body.problems });
    const outcome = updateWallet(deps, body.value);
    if (!outcome.ok) {
      return sendError(
        res,
        400,
        outcome.description,
        outcome.status ? { status: outcome.status } : {},
      );
    }
    sendOk(res, {
      accountNumber: outcome.wallet.accountNumber,
      mWallet: walletDetails(outcome.wallet),
    });
  });
  return router;
}
