import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { createHeldAnswers } from './core/after-action.ts';
import { closeServer } from './core/close-server.ts';
import { createSandboxClock, type SandboxClock } from './core/clock.ts';
import { requireApiKey, type Credentials } from './core/credentials.ts';
import type { SandboxDeps } from './services/deps.ts';
import { DEFAULT_DIALECT, type Dialect } from './core/dialect.ts';
import { BARE_400, markStart, sendError } from './core/envelope.ts';
import { createFaults, faultMiddleware, type Faults } from './core/faults.ts';
import type { SandboxKeys } from './core/keys.ts';
import { controlEventRoutes } from './routes/control-event-routes.ts';
import { controlFaultRoutes } from './routes/control-fault-routes.ts';
import { controlRefundRoutes } from './routes/control-refund-routes.ts';
import { controlStateRoutes } from './routes/control-state-routes.ts';
import { payIdRoutes } from './routes/payid-routes.ts';
import { refundRoutes } from './routes/refund-routes.ts';
import { statusRoutes } from './routes/status-routes.ts';
import { reportRoutes } from './routes/report-routes.ts';
import { subscriptionRoutes } from './routes/subscription-routes.ts';
import { TOKEN_PATH, tokenRoutes } from './routes/token-routes.ts';
import { walletRoutes } from './routes/wallet-routes.ts';
import { createStore, type SandboxStore } from './state/store.ts';
import type { Attempt, NotificationRecord } from './state/types.ts';
import { createTokenIssuer } from './core/token.ts';
import { createDeliveryEngine } from './webhooks/delivery-engine.ts';
import { createNotifier } from './webhooks/notifier.ts';

const DEFAULT_RETRY_DELAY_MS = 30_000;
const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
const BODY_LIMIT = '64kb';

export interface SandboxOptions {
  credentials: Credentials;
  keys: SandboxKeys;
  clock?: SandboxClock;
  store?: SandboxStore;
  faults?: Faults;
  retryDelayMs?: number;
  deliveryTimeoutMs?: number;
  /** Which description of the platform to play (dialect.ts); default `any`. */
  dialect?: Dialect;
  onAttempt?: (record: NotificationRecord, attempt: Attempt) => void;
  /**
   * Answer every 400 of a platform endpoint with no body at all, as the public reference
   * documents its 400 (a client cannot learn from it which field was refused).
   */
  bare400?: boolean;
}

export interface Sandbox {
  app: Express;
  deps: SandboxDeps;
  /** Listens on host:port (0: any free port); answers the base URL and a closer. */
  listen(
    port: number,
    host: string,
  ): Promise<{ url: string; server: Server; close(): Promise<void> }>;
  /** Stops the delivery engine (pending retries are dropped) and drops hung answers. */
  close(): void;
}

/** The sandbox: one Express app serving the platform's endpoints and the /sandbox controls. */
export function createSandbox(options: SandboxOptions): Sandbox {
  const clock = options.clock ?? createSandboxClock();
  const store = options.store ?? createStore();
  const faults = options.faults ?? createFaults();
  const retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  const timeoutMs = options.deliveryTimeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  const engine = createDeliveryEngine({
    store,
    keys: options.keys,
    faults,
    clock,
    retryDelayMs,
    timeoutMs,
    ...(options.onAttempt && { onAttempt: options.onAttempt }),
  });
  const deps: SandboxDeps = {
    clock,
    store,
    keys: options.keys,
    credentials: options.credentials,
    tokens: createTokenIssuer(() => clock.now()),
    faults,
    engine,
    notifier: createNotifier(store, engine, clock),
    waitLimitMs: retryDelayMs + 2 * timeoutMs + 5000,
    dialect: options.dialect ?? DEFAULT_DIALECT,
  };
  const held = createHeldAnswers();

  const app = express();
  app.disable('x-powered-by');
  app.locals[BARE_400] = options.bare400 === true;
  app.use(markStart);
  app.use(express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'] }));
  app.use(onPlatformPaths(faultMiddleware(faults, TOKEN_PATH, held), PLATFORM_PREFIXES));
  app.use(tokenRoutes(deps));
  app.use(
    onPlatformPaths(requireApiKey(deps.credentials, deps.tokens, deps.dialect), API_KEY_PREFIXES),
  );
  for (const routes of [
    payIdRoutes,
    walletRoutes,
    refundRoutes,
    statusRoutes,
    reportRoutes,
    subscriptionRoutes,
  ])
    app.use(routes(deps));
  for (const routes of [
    controlEventRoutes,
    controlStateRoutes,
    controlFaultRoutes,
    controlRefundRoutes,
  ])
    app.use(routes(deps));
  app.use((_req, res) => sendError(res, 404, 'No such endpoint'));
  app.use(errorHandler);

  return {
    app,
    deps,
    listen: (port, host) => listen(app, port, host),
    close: () => {
      engine.close();
      held.closeAll();
    },
  };
}

const API_KEY_PREFIXES = [
  '/receivables/',
  '/mwallet/',
  '/paytoreceivables/',
  '/subscriptions/',
  '/financial/',
];
const PLATFORM_PREFIXES = ['/au/', '/public/', ...API_KEY_PREFIXES];

/** Runs `middleware` only for paths under one of `prefixes` (case-insensitive, like routing). */
function onPlatformPaths(middleware: RequestHandler, prefixes: readonly string[]): RequestHandler {
  return (req, res, next) => {
    const path = req.path.toLowerCase();
    if (prefixes.some((prefix) => path.startsWith(prefix))) return middleware(req, res, next);
    next();
  };
}

/** Bad JSON: 400; too large: 413; anything else: 500 without internals. */
const errorHandler: ErrorRequestHandler = (error: { type?: string }, _req, res, _next) => {
  if (res.headersSent) return;
  if (error.type === 'entity.parse.failed')
    return sendError(res, 400, 'The body is not valid JSON');
  if (error.type === 'entity.too.large')
    return sendError(res, 413, `The body is larger than ${BODY_LIMIT}`);
  sendError(res, 500, 'Unexpected sandbox error');
};

async function listen(app: Express, port: number, host: string) {
  const server = app.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    server,
    close: () => closeServer(server),
  };
}
