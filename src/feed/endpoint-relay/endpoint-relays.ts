import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from '../../lib/database/database.ts';
import type { Logger } from '../../lib/logger.ts';
import { createSink as createSinkFor } from '../sinks/create-sink.ts';
import type { Sink } from '../sinks/sink.ts';
import {
  startEndpointRelay,
  type EndpointRelay,
  type RelayMetrics,
  type RenderEvents,
} from './endpoint-relay.ts';
import {
  readEndpointSettings,
  type ConfiguredEndpoint,
  type EndpointSettings,
} from './endpoint-settings.ts';

export interface EndpointRelaysOptions {
  db: Db;
  /** FEED_HTTP_URL's endpoint, when set on this instance. */
  configured?: ConfiguredEndpoint | undefined;
  retryBaseMs: number;
  retryMaxMs: number;
  /** How often feed_endpoints is read again (FEED_ENDPOINTS_REFRESH_MS). */
  refreshMs: number;
  logger: Logger;
  metrics?: RelayMetrics;
  /** The body of each event (src/feed/render-events.ts over the feed's pool). */
  render: RenderEvents;
  pollIntervalMs?: number;
  /** Unique per instance (default: host, pid and a random part). */
  instance?: string;
  createSink?: (settings: EndpointSettings) => Sink;
  now?: () => Date;
}

export interface EndpointRelays {
  /** New positions were assigned: every endpoint fans out and claims now. */
  nudge(): void;
  /** Reads feed_endpoints now (tests; the timer does it every `refreshMs`). */
  refresh(): Promise<void>;
  /** Stops every endpoint's relay (attempts in flight finish). */
  stop(): Promise<void>;
}

interface Running {
  relay: EndpointRelay;
  /** The settings it runs by, to notice a changed row. */
  fingerprint: string;
}

/**
 * The relays of this instance (docs/feed.md, "Endpoints"): one loop per enabled endpoint, every
 * instance running all of them (claims keep instances apart). feed_endpoints is read again
 * every `refreshMs`: a new or enabled endpoint starts, a disabled or removed one stops, and a
 * changed one (secrets, filter, limits, target) is applied to its running loop, so a rotated
 * secret signs the next attempt without a restart.
 */
export function startEndpointRelays(options: EndpointRelaysOptions): EndpointRelays {
  const instance =
    options.instance ?? `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
  const createSink = options.createSink ?? ((settings) => createSinkFor(settings.sink));
  const logger = options.logger;
  const running = new Map<string, Running>();
  // The problem last reported per endpoint: said once, not on every refresh.
  const reported = new Map<string, string>();
  const stopping = new Set<Promise<void>>();
  let stopped = false;
  let failing = false;

  const stopOne = (id: string) => {
    const entry = running.get(id);
    if (!entry) return;
    running.delete(id);
    const done: Promise<void> = entry.relay.stop().finally(() => stopping.delete(done));
    stopping.add(done);
  };

  const report = (id: string, name: string, problem: string) => {
    if (reported.get(id) === problem) return;
    reported.set(id, problem);
    logger.error({ endpoint: name, problem }, 'feed endpoint cannot be relayed here');
  };

  const apply = (settings: EndpointSettings) => {
    const fingerprint = JSON.stringify(settings);
    const entry = running.get(settings.id);
    if (entry?.fingerprint === fingerprint) return;
    try {
      if (entry) {
        entry.relay.update(settings);
        entry.fingerprint = fingerprint;
        logger.info({ endpoint: settings.name }, 'feed endpoint changed; applied');
        return;
      }
      const relay = startEndpointRelay({
        db: options.db,
        settings,
        createSink,
        render: options.render,
        instance,
        retryBaseMs: options.retryBaseMs,
        retryMaxMs: options.retryMaxMs,
        logger,
        pollIntervalMs: options.pollIntervalMs ?? 250,
        ...(options.metrics && { metrics: options.metrics }),
        ...(options.now && { now: options.now }),
      });
      running.set(settings.id, { relay, fingerprint });
      reported.delete(settings.id);
      logger.info({ endpoint: settings.name }, 'feed endpoint relay started');
    } catch (error) {
      stopOne(settings.id);
      report(settings.id, settings.name, error instanceof Error ? error.message : String(error));
    }
  };

  const refresh = async () => {
    const endpoints = await readEndpointSettings(options.db, options.configured);
    if (stopped) return;
    const seen = new Set(endpoints.map((endpoint) => endpoint.id));
    for (const id of running.keys()) if (!seen.has(id)) stopOne(id);
    for (const endpoint of endpoints) {
      if ('problem' in endpoint) {
        stopOne(endpoint.id);
        report(endpoint.id, endpoint.name, endpoint.problem);
      } else {
        apply(endpoint);
      }
    }
  };

  let timer: NodeJS.Timeout | undefined;
  let refreshing: Promise<void> = Promise.resolve();
  const tick = () => {
    refreshing = refresh()
      .then(() => {
        if (failing) logger.info('feed endpoints readable again');
        failing = false;
      })
      .catch((error: unknown) => {
        if (!failing) logger.warn({ err: error }, 'feed endpoints cannot be read; retrying');
        failing = true;
      })
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, options.refreshMs).unref();
      });
  };
  tick();

  return {
    nudge: () => {
      for (const { relay } of running.values()) relay.nudge();
    },
    refresh: async () => {
      await refreshing;
      await refresh();
    },
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await refreshing;
      for (const id of [...running.keys()]) stopOne(id);
      await Promise.all(stopping);
    },
  };
}
