import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Logger } from './logger.ts';
import type { Db } from './storage/database.ts';
import type { SigningKeySource } from './verification/key-source.ts';
import { createSecretMatcher } from './verification/secrets.ts';
import { errorHandler, notFound } from './http/errors.ts';
import { healthRouter } from './http/health-routes.ts';
import { requestContext } from './http/request-context.ts';
import { webhookRouter } from './http/webhook-route.ts';

export interface AppDeps {
  config: {
    readonly bodyLimitBytes: number;
    readonly webhookSecrets: readonly string[];
    /** Express `trust proxy` setting: which forwarded-for hops to believe. */
    readonly trustProxy?: boolean | number | string;
  };
  db: Db;
  keys: SigningKeySource;
  logger: Logger;
  clock: { now(): Date };
  /** Readiness turns false at once when shutdown begins; defaults to never. */
  isShuttingDown?: () => boolean;
}

/** Builds the whole HTTP app from explicit dependencies; nothing here is global. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.set('trust proxy', deps.config.trustProxy ?? false);
  app.set('etag', false);
  app.use(helmet());
  app.use(requestContext(deps.logger));

  app.use(
    healthRouter({
      db: deps.db,
      keys: deps.keys,
      isShuttingDown: deps.isShuttingDown ?? (() => false),
    }),
  );
  app.use(
    webhookRouter({
      db: deps.db,
      keys: deps.keys,
      secretMatches: createSecretMatcher(deps.config.webhookSecrets),
      now: () => deps.clock.now(),
      bodyLimitBytes: deps.config.bodyLimitBytes,
    }),
  );

  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}
