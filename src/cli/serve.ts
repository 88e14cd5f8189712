import path from 'node:path';
import express from 'express';
import { createApp } from '../receiver/app.ts';
import { createCaptureWriter } from '../capture/index.ts';
import { startFeed } from '../feed/app.ts';
import { ConfigError } from '../lib/config/config-error.ts';
import { loadConfig, type Config } from './config.ts';
import { metricsRouter } from '../lib/http/metrics-route.ts';
import { projectDir } from '../lib/project-dir.ts';
import { startScheduledRecovery } from '../platform/scheduled.ts';
import { registerMoneyStateMetrics, startScheduledPrune } from '../operations/index.ts';
import { PRUNE_STEPS } from './prune-steps.ts';
import { createLogger, type Logger } from '../lib/logger.ts';
import { createLogStream, type LogStream } from '../lib/log-stream.ts';
import { createMetrics, type Metrics } from '../receiver/index.ts';
import { listen } from '../lib/http/server.ts';
import { stopOnSignals } from '../lib/http/shutdown.ts';
import { environmentWith, USAGE } from './start-options.ts';
import { assertMigrated, migrateToLatest } from '../lib/database/migrator.ts';
import type { CommandDescription, OperatorIo } from '../lib/command-line/command-description.ts';
import { resolveEmbeddedDataDir } from '../lib/database/embedded-postgres.ts';
import { openDatabase } from '../lib/database/open-database.ts';
import {
  createConfiguredKeySource,
  createFetchedKeySource,
  type SigningKeySource,
} from '../receiver/index.ts';
import { parsePublicKey } from '../receiver/signature.ts';

/** How long a normal exit waits for buffered log lines to reach stdout (a stalled reader loses them). */
const EXIT_FLUSH_MS = 1000;

/**
 * `main.ts serve [--dotenv <path>]`: the receiver. Answers 'serving' once it listens; from then on
 * SIGTERM or SIGINT drains and stops it, and the shutdown exits the process. A start that fails
 * throws (exit codes: src/cli/exit-codes.ts), once the log lines written so far have had their
 * moment.
 */
export function command(io: Pick<OperatorIo, 'env'>): CommandDescription {
  return {
    name: 'serve',
    help: USAGE,
    // Not --env-file: node and tsx take that one for themselves, and fail when the file is missing.
    options: [{ flags: '--dotenv <path>' }],
    run: async ({ options }) => {
      const log: { stream?: LogStream } = {};
      try {
        return await serve(io.env, options.dotenv as string | undefined, log);
      } catch (error) {
        await log.stream?.flushWithin(EXIT_FLUSH_MS);
        throw error;
      }
    },
  };
}

/** Wiring only: configuration, signing key, database, listen, shut down. */
async function serve(
  env: Record<string, string | undefined>,
  envFile: string | undefined,
  log: { stream?: LogStream },
): Promise<'serving'> {
  const environment = environmentWith(envFile, env);
  const config = loadConfig(environment.env);
  log.stream = createLogStream({ fd: 1, maxBufferBytes: config.logBufferBytes });
  const logStream = log.stream;
  const logger = createLogger(config.logLevel, logStream.destination);
  if (config.allowNoWebhookSecret) {
    logger.warn(
      'ALLOW_NO_WEBHOOK_SECRET=true: deliveries are accepted without the shared secret (signature only)',
    );
  }
  // A pinned key that does not parse is a configuration fault: refuse before touching the database.
  const pinnedKey = await loadPinnedKey(config);
  const database = await openDatabase(config, logger, projectDir());
  if (config.migrateOnStart) await migrateToLatest(database.db, logger);
  else
    await assertMigrated(database.db, undefined, {
      orElse: ', or start with MIGRATE_ON_START=true',
    });
  const metrics = createMetrics({ pool: database.pool, log: logStream });
  // Money waiting for an operator (quarantine, conflicts, refunds in doubt, PayTo receipts):
  // read from the database when /metrics is scraped, at most once per 5 s.
  registerMoneyStateMetrics({ db: database.db, registry: metrics.registry, logger });
  const keys = createKeySource(config, pinnedKey, logger, metrics);
  await keys.start();

  let shuttingDown = false;
  const app = createApp({
    // Metrics never go on the public listener: their own (loopback by default) or none.
    config: { ...config, exposeMetrics: false },
    db: database.db,
    keys,
    logger,
    clock: { now: () => new Date() },
    isShuttingDown: () => shuttingDown,
    metrics,
    ...(config.captureDir && {
      capture: createCaptureWriter({ dir: config.captureDir, logger, keys }),
    }),
  });
  const recovery = await startScheduledRecovery({
    config,
    db: database.db,
    logger,
    registry: metrics.registry,
  });
  const prune = startScheduledPrune({
    config,
    db: database.db,
    steps: PRUNE_STEPS,
    logger,
    registry: metrics.registry,
  });
  const timeouts = config.server;
  const servers = [
    await listen(app, { port: config.port, host: config.host, timeouts, variable: 'PORT' }),
  ];
  if (config.metricsPort !== undefined) {
    const metricsApp = express().use(metricsRouter(metrics.registry));
    servers.push(
      await listen(metricsApp, {
        port: config.metricsPort,
        host: config.metricsHost,
        timeouts,
        variable: 'METRICS_PORT',
      }),
    );
  }
  const feed = await startFeed({
    config: config.feed,
    databaseUrl: database.url,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    timeouts,
    logger,
    registry: metrics.registry,
  });
  servers.push(...feed.servers);
  logger.info(
    {
      addresses: servers.map((server) => server.address()),
      providerEnv: config.providerEnv,
      signingKey: config.signingKey.kind === 'fetched' ? config.signingKey.url : 'configured',
      sharedSecretCheck: config.webhookSecrets.length > 0,
      embeddedDatabase: embeddedDatabaseHint(config),
      envFile: environment.fileRead ? envFile : undefined,
    },
    'receiver listening',
  );

  const plan = {
    servers,
    beginShutdown: () => {
      shuttingDown = true;
      feed.beginShutdown();
    },
    release: async () => {
      keys.stop();
      await Promise.all([recovery?.stop(), prune?.stop()]);
      await feed.stop();
      await database.close();
    },
    timeoutMs: config.server.shutdownTimeoutMs + config.server.shutdownDrainDelayMs,
    // Log lines are written asynchronously: give them a bounded moment to go out before the
    // exit (the forced exit waits for nothing, least of all a stalled stdout).
    flush: () => logStream.flushWithin(EXIT_FLUSH_MS),
    drainDelayMs: config.server.shutdownDrainDelayMs,
    logger,
  };
  stopOnSignals(plan);
  return 'serving';
}

/**
 * Where the embedded Postgres can be reached (psql, a SQL client, the operator commands), without
 * its password: that lives in a file beside the cluster, readable by this user only.
 */
function embeddedDatabaseHint(config: Config) {
  if (config.databaseUrl !== undefined) return false;
  const { dir } = resolveEmbeddedDataDir(config.embeddedPostgres.dir, projectDir());
  return {
    url: `postgres://postgres@localhost:${config.embeddedPostgres.port}/postgres`,
    passwordFile: path.join(dir, 'password'),
  };
}

async function loadPinnedKey(config: Config) {
  if (config.signingKey.kind !== 'configured') return undefined;
  try {
    return await parsePublicKey(config.signingKey.text);
  } catch (error) {
    throw new ConfigError([
      `SIGNING_KEY: ${error instanceof Error ? error.message : 'unreadable'}`,
    ]);
  }
}

function createKeySource(
  config: Config,
  pinnedKey: Awaited<ReturnType<typeof loadPinnedKey>>,
  logger: Logger,
  metrics: Metrics,
): SigningKeySource {
  const now = () => Date.now();
  if (config.signingKey.kind === 'configured' && pinnedKey) {
    return createConfiguredKeySource(pinnedKey, now);
  }
  if (config.signingKey.kind !== 'fetched') throw new Error('unreachable: pinned key not loaded');
  return createFetchedKeySource({
    ...config.signingKey,
    now,
    logger,
    onFetch: (result) => metrics.keyFetches.inc({ result }),
  });
}
