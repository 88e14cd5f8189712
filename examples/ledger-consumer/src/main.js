/* global AbortController */
import process from 'node:process';
import { setTimeout } from 'node:timers';
import pg from 'pg';
import { ConfigError, readConfig } from './config.js';
import { ensureSchema } from './ledger.js';
import { createLog, describeError } from './log.js';
import { createBrokerHandler } from './broker-message.js';
import { keepReading } from './keep-reading.js';
import { natsReader } from './nats.js';
import { createPushServer } from './push.js';
import { runPull } from './pull.js';
import { rabbitMqReader } from './rabbitmq.js';

/**
 * node src/main.js
 *
 * Push (FEED_HTTP_SECRET, PORT), pull (FEED_URL, FEED_TOKEN), broker endpoints (NATS_URL,
 * AMQP_URL), or several, into the tables of LEDGER_DATABASE_URL. Exit codes: 0 stopped by SIGTERM/SIGINT, 1 failed, 2 bad configuration.
 */

const SHUTDOWN_TIMEOUT_MS = 15_000;

async function main() {
  let config;
  try {
    config = readConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  const log = createLog();
  const pool = new pg.Pool({
    connectionString: config.databaseUrl,
    max: 5,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 15_000,
    application_name: 'ledger-consumer',
  });
  pool.on('error', (error) =>
    log.warn('idle database connection failed', { error: describeError(error) }),
  );

  try {
    await ensureSchema(pool);
  } catch (error) {
    log.error('cannot create the ledger tables in LEDGER_DATABASE_URL', {
      error: describeError(error),
    });
    await pool.end();
    return 1;
  }

  const stopping = new AbortController();
  const signalled = new Promise((resolve) => {
    for (const name of ['SIGTERM', 'SIGINT']) process.once(name, () => resolve(name));
  });

  /** @type {import('node:http').Server | undefined} */
  let server;
  if (config.push) {
    const { host, port } = config.push;
    server = createPushServer({
      secrets: config.push.secrets,
      db: pool,
      log,
      maxBodyBytes: config.push.maxBodyBytes,
    });
    try {
      await listen(server, host, port);
    } catch (error) {
      const inUse = /** @type {{ code?: string }} */ (error).code === 'EADDRINUSE';
      process.stderr.write(
        `ledger-consumer: PORT: ${host}:${port} ${inUse ? 'is already in use' : `cannot be listened on: ${describeError(error)}`}\n`,
      );
      await pool.end();
      return 2;
    }
    const address = /** @type {import('node:net').AddressInfo} */ (server.address());
    log.info('push: listening', { host, port: address.port });
  }
  const pulling = config.pull
    ? runPull({ config: config.pull, pool, log, signal: stopping.signal })
    : Promise.resolve();
  // Broker endpoints: each message through the push path's steps, acknowledged after the commit.
  const reading = { log, signal: stopping.signal };
  const brokers = { secrets: config.brokerSecrets, db: pool, log };
  const natsReading = config.nats
    ? keepReading(
        'nats',
        natsReader(config.nats, createBrokerHandler({ ...brokers, via: 'nats' }), log),
        reading,
      )
    : Promise.resolve();
  const rabbitMqReading = config.rabbitmq
    ? keepReading(
        'rabbitmq',
        rabbitMqReader(config.rabbitmq, createBrokerHandler({ ...brokers, via: 'rabbitmq' }), log),
        reading,
      )
    : Promise.resolve();

  const signal = await signalled;
  log.info('stopping', { signal });
  setTimeout(() => {
    log.error('stopping took too long; exiting');
    process.exit(1);
  }, SHUTDOWN_TIMEOUT_MS).unref();

  // Pull: a long poll in flight is abandoned, a page being stored is committed first.
  stopping.abort();
  // Push: no new connections; POSTs being stored finish (and are answered) first.
  const closed = server === undefined ? Promise.resolve() : close(server);
  await Promise.all([pulling, closed, natsReading, rabbitMqReading]);
  await pool.end();
  log.info('stopped');
  return 0;
}

/**
 * @param {import('node:http').Server} server
 * @param {string} host
 * @param {number} port
 */
function listen(server, host, port) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(undefined);
    });
  });
}

/** @param {import('node:http').Server} server */
function close(server) {
  return new Promise((resolve) => {
    server.close(() => resolve(undefined));
    // Idle keep-alive connections now; busy ones as soon as their answer is sent.
    server.closeIdleConnections();
    server.on('request', (_req, res) => res.setHeader('Connection', 'close'));
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(
      `ledger-consumer: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
