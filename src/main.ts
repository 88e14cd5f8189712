import { fileURLToPath } from 'node:url';
import type { Server } from 'node:http';
import { createApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { migrateToLatest } from './storage/migrator.ts';
import { openDatabase } from './storage/open-database.ts';
import {
  createConfiguredKeySource,
  createFetchedKeySource,
  type SigningKeySource,
} from './verification/key-source.ts';
import { parsePublicKey } from './verification/public-key.ts';

const PROJECT_DIR = fileURLToPath(new URL('..', import.meta.url));
const FORCED_EXIT_MS = 15_000;

/** Wiring only: configuration, database, migrations, signing key, listen, shut down. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);
  // A pinned key that does not parse is a configuration fault: refuse before touching the database.
  const keys = await createKeySource(config, logger);
  const database = await openDatabase(config, logger, PROJECT_DIR);
  await migrateToLatest(database.db, logger);
  await keys.start();

  let shuttingDown = false;
  const app = createApp({
    config,
    db: database.db,
    keys,
    logger,
    clock: { now: () => new Date() },
    isShuttingDown: () => shuttingDown,
  });
  const server = app.listen(config.port, config.host, () => {
    logger.info(
      {
        address: server.address(),
        providerEnv: config.providerEnv,
        signingKey: config.signingKey.kind === 'fetched' ? config.signingKey.url : 'configured',
        sharedSecretCheck: config.webhookSecrets.length > 0,
        embeddedDatabase: config.databaseUrl === undefined,
      },
      'receiver listening',
    );
  });
  setServerTimeouts(server);

  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutting down: finishing in-flight deliveries');
    setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, FORCED_EXIT_MS).unref();
    server.close(async () => {
      keys.stop();
      await database.close();
      logger.info('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/**
 * Longer keep-alive than a typical load balancer's idle timeout (60 s), so the balancer closes
 * idle connections first and never sends a request down a socket we are closing.
 */
function setServerTimeouts(server: Server): void {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
}

async function createKeySource(config: Config, logger: Logger): Promise<SigningKeySource> {
  const now = () => Date.now();
  if (config.signingKey.kind === 'configured') {
    try {
      return createConfiguredKeySource(await parsePublicKey(config.signingKey.text), now);
    } catch (error) {
      throw new ConfigError([
        `SIGNING_KEY: ${error instanceof Error ? error.message : 'unreadable'}`,
      ]);
    }
  }
  const { url, allowHttp, fetchTimeoutMs, refreshCooldownMs, retryIntervalMs } = config.signingKey;
  return createFetchedKeySource({
    url,
    allowHttp,
    fetchTimeoutMs,
    refreshCooldownMs,
    retryIntervalMs,
    now,
    logger,
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
