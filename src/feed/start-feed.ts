import express from 'express';
import type { Registry } from 'prom-client';
import type { FeedConfig } from './config.ts';
import { errorHandler, notFound } from '../lib/http/http-error.ts';
import type { Logger } from '../lib/logger.ts';
import { listen, type HttpServer, type ServerTimeouts } from '../lib/http/server.ts';
import { createDatabase } from '../lib/database/database.ts';
import { startAssigner } from './assigner.ts';
import { createFeedMetrics } from './feed-metrics.ts';
import { createFeedNotifier } from './feed-notifier.ts';
import { feedRouter } from './feed-route.ts';
import { renderEvents } from './render-events.ts';
// The feed's tables on the Database type (declaration merging): what its statements are checked against.
import './tables.ts';
import { startEndpointRelays } from './endpoint-relay/endpoint-relays.ts';

export interface RunningFeed {
  /** The GET /feed listener, when FEED_TOKEN is set (to close with the others on shutdown). */
  servers: HttpServer[];
  /** Shutdown began: long polls answer now, so the listener can close. */
  beginShutdown(): void;
  /** After the servers have closed: stops the relays (attempts in flight finish) and the assigner. */
  stop(): Promise<void>;
}

const GAUGE_REFRESH_MS = 5000;

/**
 * Everything of the feed an instance runs (docs/feed.md): the assigner always, the GET /feed
 * listener when FEED_TOKEN is set, a relay per enabled endpoint (the one FEED_HTTP_URL declares
 * when it is set; feed_endpoints read again every few seconds). All of it on its own small
 * pool, so nothing here can take a connection from the receiver.
 */
export async function startFeed(options: {
  config: FeedConfig;
  databaseUrl: string;
  statementTimeoutMs: number;
  timeouts: ServerTimeouts;
  logger: Logger;
  registry: Registry;
}): Promise<RunningFeed> {
  const { config, logger } = options;
  const logs = logger.child({ component: 'feed' });
  const db = createDatabase({
    url: options.databaseUrl,
    poolMax: config.poolMax,
    statementTimeoutMs: options.statementTimeoutMs,
    onIdleClientError: (error) => logs.warn({ err: error }, 'feed database connection lost'),
  });
  const metrics = createFeedMetrics(options.registry, { configured: config.relay !== undefined });
  const relays = startEndpointRelays({
    db,
    configured: config.relay,
    retryBaseMs: config.retry.baseMs,
    retryMaxMs: config.retry.maxMs,
    refreshMs: config.endpointsRefreshMs,
    logger: logs,
    metrics,
    render: (events) => renderEvents(db, events),
  });
  const assigner = startAssigner({
    db,
    intervalMs: config.assignIntervalMs,
    logger: logs,
    onAssigned: () => relays.nudge(),
  });
  const refreshGauges = () => {
    metrics.refresh(db).catch(() => {}); // a database outage is reported by the receiver
  };
  // At once, then every few seconds: an endpoint's gauges are there from the first scrape.
  refreshGauges();
  const refresh = setInterval(refreshGauges, GAUGE_REFRESH_MS).unref();

  const notifier = config.token
    ? createFeedNotifier({ url: options.databaseUrl, logger: logs })
    : undefined;
  const closing = new AbortController();
  const servers: HttpServer[] = [];
  if (config.token && notifier) {
    const app = express();
    app.disable('x-powered-by');
    app.use(
      feedRouter({
        db,
        token: config.token,
        pageMaxBytes: config.pageMaxBytes,
        notifier,
        logger: logs,
        closing: closing.signal,
      }),
    );
    app.use(notFound);
    app.use(errorHandler(logs));
    servers.push(
      await listen(app, {
        port: config.port,
        host: config.host,
        timeouts: options.timeouts,
        variable: 'FEED_PORT',
      }),
    );
  }
  logs.info(
    {
      pull: config.token ? `${config.host}:${config.port}` : false,
      push: config.relay ? new URL(config.relay.url).origin : false,
    },
    'feed started',
  );
  return {
    servers,
    beginShutdown: () => closing.abort(),
    stop: async () => {
      clearInterval(refresh);
      await relays.stop();
      await assigner.stop();
      await notifier?.close();
      await db.destroy();
    },
  };
}
