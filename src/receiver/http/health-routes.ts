import { Router } from 'express';
import { sql } from 'kysely';
import type { Db } from '../../lib/database/database.ts';
import type { SigningKeySource } from '../verification/key-source.ts';
import { sendEnvelope } from '../../lib/http/error-envelope.ts';

export interface HealthDeps {
  db: Db;
  keys: SigningKeySource;
  /** True once shutdown has begun: the load balancer should stop sending work here. */
  isShuttingDown: () => boolean;
}

/**
 * `/healthz` says the process is alive (restart it if not); `/readyz` says it can take
 * deliveries now: database reachable, signing key in hand, not shutting down.
 */
export function healthRouter(deps: HealthDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => sendEnvelope(res, 200, 'Alive'));
  router.get('/readyz', async (_req, res) => {
    const database = await databaseReachable(deps.db);
    const signingKey = deps.keys.current() !== undefined;
    const shuttingDown = deps.isShuttingDown();
    const ready = database && signingKey && !shuttingDown;
    const problems = [
      !database && 'database unreachable',
      !signingKey && 'no signing key',
      shuttingDown && 'shutting down',
    ].filter((problem): problem is string => typeof problem === 'string');
    sendEnvelope(res, ready ? 200 : 503, ready ? 'Ready' : `Not ready: ${problems.join(', ')}`);
  });
  return router;
}

async function databaseReachable(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
