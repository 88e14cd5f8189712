import express from 'express';
import { createApp } from './app.ts';
import { createCaptureWriter } from './capture/capture-writer.ts';
import { startFeed } from './feed/start-feed.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { metricsRouter } from './http/observability.ts';
import { projectDir } from './project-dir.ts';
import { createLogger, type Logger } from './logger.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { listen, shutDownGracefully } from './server.ts';
import { migrateToLatest } from './storage/migrator.ts';
import { openDatabase } from './storage/open-database.ts';
import {
  createConfiguredKeySource,
  createFetchedKeySource,
  type SigningKeySource,
} from './verification/key-source.ts';
import { parsePublicKey } from './verification/public-key.ts';

/** Wiring only: configuration, signing key, database, listen, shut down. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);
  // A pinned key that does not parse is a configuration fault: refuse before touching the database.
  const pinnedKey = await loadPinnedKey(config);
  const database = await openDatabase(config, logger, projectDir());
  await migrateToLatest(database.db, logger);
  const metrics = createMetrics({ pool: database.pool });
  const keys = createKeySource(config, pinnedKey, logger, metrics);
  await keys.start();

  let shuttingDown = false;
  const app = createApp({
    config: { ...config, exposeMetrics: config.metricsPort === undefined },
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
  const timeouts = config.server;
  const servers = [await listen(app, { port: config.port, host: config.host, timeouts })];
  if (config.metricsPort !== undefined) {
    const metricsApp = express().use(metricsRouter(metrics));
    servers.push(
      await listen(metricsApp, { port: config.metricsPort, host: config.host, timeouts }),
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
      embeddedDatabase: config.databaseUrl === undefined,
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
      await feed.stop();
      await database.close();
    },
    timeoutMs: config.server.shutdownTimeoutMs + config.server.shutdownDrainDelayMs,
    // Log lines are written asynchronously: flush them before the process goes.
    exit: (code: number) => logger.flush(() => process.exit(code)),
    drainDelayMs: config.server.shutdownDrainDelayMs,
    logger,
  };
  let stopping: Promise<void> | undefined;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      stopping ??= shutDownGracefully(plan, signal);
    });
  }
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

main().catch((error: unknown) => {
  // A configuration fault names the variable and needs no stack trace.
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(
    `receiver failed to start: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
