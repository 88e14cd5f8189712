import express, { type Express } from 'express';
import type { Capture } from './capture-hook.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Db } from '../../lib/database/database.ts';
import { createBatchingStore } from '../storage/delivery-batcher.ts';
import { groupCommitSettings } from '../storage/settings.ts';
import type { SigningKeySource } from '../verification/key-source.ts';
import { createSecretMatcher } from '../../lib/secrets.ts';
import { errorHandler, notFound } from '../../lib/http/http-error.ts';
import { healthRouter } from './health-routes.ts';
import { createMemoryBudget } from './memory-budget.ts';
import { metricsRouter } from '../../lib/http/metrics-route.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { requestContext } from './request-context.ts';
import { requestSettings } from './settings.ts';
import { securityHeaders } from './security-headers.ts';
import { WEBHOOK_PATH, webhookRoutes } from './webhook-route.ts';

export interface AppDeps {
  /**
   * The receiver's Config, or the few fields a test needs: a limit left unset takes its
   * variable's default from its declaration (./settings.ts, ../storage/settings.ts), never a
   * copy of it here.
   */
  config: {
    readonly bodyLimitBytes: number;
    readonly webhookSecrets: readonly string[];
    /** Express `trust proxy` setting: which forwarded-for hops to believe. */
    readonly trustProxy?: boolean | number | string;
    /** Deliveries processed at once; beyond it a quick 503. */
    readonly maxInFlightDeliveries?: number;
    /** Bodies read at once before their signature is checked, with or without a shared secret. */
    readonly maxUnverifiedBodies?: number;
    /** All request bodies held at once, after inflation; beyond it a quick 503. */
    readonly bodyMemoryBudgetBytes?: number;
    /** REQUEST_TIMEOUT_MS: a body must have arrived within it (else 408). Unset: no own limit. */
    readonly server?: { readonly requestTimeoutMs: number };
    /** Serve GET /metrics on this app (false when a separate metrics port serves it). Default true. */
    readonly exposeMetrics?: boolean;
    /** Group commit: statements in flight at once, and deliveries per statement. */
    readonly writeConcurrency?: number;
    readonly writeBatchMax?: number;
  };
  db: Db;
  keys: SigningKeySource;
  logger: Logger;
  clock: { now(): Date };
  /** Readiness turns false at once when shutdown begins; defaults to never. */
  isShuttingDown?: () => boolean;
  /** Defaults to a fresh registry for this app. */
  metrics?: Metrics;
  /** Keeps each authenticated delivery as a fixture file (CAPTURE_DIR). */
  capture?: (capture: Capture) => Promise<void>;
}

/** Builds the whole HTTP app from explicit dependencies; nothing here is global. */
export function createApp(deps: AppDeps): Express {
  const metrics = deps.metrics ?? createMetrics();
  const app = express();
  app.set('trust proxy', deps.config.trustProxy ?? requestSettings.defaults.trustProxy);
  app.set('etag', false);
  // helmet removes it from every answer anyway; never set, it need not be removed.
  app.disable('x-powered-by');
  const webhooks = webhookRoutes({
    db: deps.db,
    store: createBatchingStore(deps.db, {
      logger: deps.logger,
      concurrency: deps.config.writeConcurrency ?? groupCommitSettings.defaults.writeConcurrency,
      maxBatchSize: deps.config.writeBatchMax ?? groupCommitSettings.defaults.writeBatchMax,
      onBatch: (size) => metrics.writeBatchSize.observe(size),
    }),
    keys: deps.keys,
    secretMatches: createSecretMatcher(deps.config.webhookSecrets),
    secretConfigured: deps.config.webhookSecrets.length > 0,
    now: () => deps.clock.now(),
    bodyLimitBytes: deps.config.bodyLimitBytes,
    bodyMemoryBudget: createMemoryBudget(
      deps.config.bodyMemoryBudgetBytes ?? requestSettings.defaults.bodyMemoryBudgetBytes,
      metrics.bodyBytesInFlight,
    ),
    requestTimeoutMs: deps.config.server?.requestTimeoutMs,
    maxInFlight:
      deps.config.maxInFlightDeliveries ?? requestSettings.defaults.maxInFlightDeliveries,
    maxUnverifiedBodies:
      deps.config.maxUnverifiedBodies ?? requestSettings.defaults.maxUnverifiedBodies,
    metrics,
    capture: deps.capture,
    logger: deps.logger,
  });
  app.use(securityHeaders());
  app.use(requestContext(metrics));
  // Deliveries are nearly all the traffic: their route is the app's first, on its own router.
  app.post(WEBHOOK_PATH, ...webhooks.post);
  app.all(WEBHOOK_PATH, webhooks.otherMethod);
  app.use(
    healthRouter({
      db: deps.db,
      keys: deps.keys,
      isShuttingDown: deps.isShuttingDown ?? (() => false),
    }),
  );
  if (deps.config.exposeMetrics ?? true) app.use(metricsRouter(metrics.registry));

  app.use(notFound);
  app.use(
    errorHandler(deps.logger, {
      onOverloaded: () => metrics.deliveries.add(1, 'any', 'overloaded'),
    }),
  );
  return app;
}
