import { Router } from 'express';
import { providerHex, PUBLIC_KEY_PATH } from '../../../src/lib/platform-key.ts';
import { isAccountCredential } from '../core/credentials.ts';
import type { SandboxDeps } from '../services/deps.ts';
import { sendError, sendOk, sendText } from '../core/envelope.ts';

export const TOKEN_PATH = '/au/security/oauth-v1/Token';

/**
 * The token endpoint (on {auth_url}, here the sandbox itself): Basic mAccount:API key, a JWT
 * whose `exp` is 60 minutes on; and the public key, unauthenticated, as the platform serves it.
 */
export function tokenRoutes(deps: SandboxDeps): Router {
  const router = Router();
  router.post(TOKEN_PATH, (req, res) => {
    if (!isAccountCredential(req.get('authorization'), deps.credentials)) {
      sendError(res, 401, 'mAccount number or API key is invalid');
      return;
    }
    const { token } = deps.tokens.issue(deps.credentials.mAccount);
    sendOk(res, { token });
  });
  router.get(PUBLIC_KEY_PATH, (_req, res) => {
    sendText(res, 'application/octet-stream', providerHex(deps.keys.current().publicKey));
  });
  return router;
}
