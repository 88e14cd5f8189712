import { Router } from 'express';
import type { SandboxDeps } from '../services/deps.ts';
import { sendError, sendOk } from '../core/envelope.ts';
import { walletUpdateAnswer, walletView } from '../services/wallet-views.ts';
import { searchWallets, updateWallet } from '../services/wallets.ts';
import { validate } from '../validation/patterns.ts';
import { WALLET_SEARCH_SCHEMAS, WALLET_UPDATE_SCHEMAS } from '../validation/wallet-dialects.ts';

/** mWallet search and update, read and answered in the sandbox's dialect; errors carry `errorCode`. */
export function walletRoutes(deps: SandboxDeps): Router {
  const router = Router();
  const { dialect } = deps;
  router.get('/mWallet/v1/search', (req, res) => {
    const query = validate(WALLET_SEARCH_SCHEMAS[dialect], req.query);
    if (!query.ok) return sendError(res, 400, 'Validation failed', { problems: query.problems });
    sendOk(res, {
      mWallets: searchWallets(deps.store.state.wallets, query.value.identifier).map((wallet) =>
        walletView(wallet, dialect),
      ),
    });
  });
  router.post('/mWallet/v1/update', (req, res) => {
    const body = validate(WALLET_UPDATE_SCHEMAS[dialect], req.body);
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
    sendOk(res, walletUpdateAnswer(outcome.wallet, dialect));
  });
  return router;
}
