import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, readConfig } from '../src/config.js';
import { newSecret } from './helpers.js';

const DATABASE = 'postgres://ledger@127.0.0.1:5432/ledger';

/** @param {Record<string, string>} env */
function problems(env) {
  try {
    readConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return '';
}

describe('configuration', () => {
  test('push: FEED_HTTP_SECRET with PORT and HOST; defaults for the rest', () => {
    const secret = newSecret();
    const config = readConfig({
      LEDGER_DATABASE_URL: DATABASE,
      FEED_HTTP_SECRET: secret,
      PORT: '4000',
    });
    assert.deepEqual(config, {
      databaseUrl: DATABASE,
      push: { secrets: [secret], host: '127.0.0.1', port: 4000, maxBodyBytes: 16 * 1024 * 1024 },
      pull: undefined,
      nats: undefined,
      rabbitmq: undefined,
      brokerSecrets: [],
    });
  });

  test('brokers: NATS_URL with its stream, AMQP_URL with its exchange, credentials apart, FEED_BROKER_SECRET', () => {
    const secret = newSecret();
    const config = readConfig({
      LEDGER_DATABASE_URL: DATABASE,
      NATS_URL: 'nats://10.0.0.7:4222',
      NATS_STREAM: 'FEED',
      NATS_TOKEN: 'nats-token',
      AMQP_URL: 'amqp://10.0.0.8:5672/',
      AMQP_EXCHANGE: 'feed',
      AMQP_USER: 'ledger',
      AMQP_PASSWORD: 'amqp-password',
      FEED_BROKER_SECRET: secret,
    });
    assert.deepEqual(
      { nats: config.nats, rabbitmq: config.rabbitmq, brokerSecrets: config.brokerSecrets },
      {
        nats: {
          servers: ['nats://10.0.0.7:4222'],
          stream: 'FEED',
          consumer: 'ledger',
          credentials: { token: 'nats-token' },
        },
        rabbitmq: {
          url: 'amqp://10.0.0.8:5672/',
          exchange: 'feed',
          queue: 'ledger',
          credentials: { username: 'ledger', password: 'amqp-password' },
        },
        brokerSecrets: [secret],
      },
    );
  });

  test('brokers: every problem named, no secret repeated', () => {
    let message = '';
    try {
      readConfig({
        LEDGER_DATABASE_URL: DATABASE,
        NATS_URL: 'nats://user:hunter2@10.0.0.7:4222',
        NATS_USER: 'only-the-user',
        AMQP_URL: 'http://10.0.0.8',
        FEED_BROKER_SECRET: 'hunter3',
      });
    } catch (error) {
      message = String(/** @type {Error} */ (error).message);
    }
    assert.match(message, /NATS_URL: must not carry a user or password/);
    assert.match(message, /NATS_STREAM: required/);
    assert.match(message, /NATS_USER and NATS_PASSWORD: give both or neither/);
    assert.match(message, /AMQP_URL: must be a amqp:\/\/ \(or amqps:\/\/\) URL/);
    assert.match(message, /AMQP_EXCHANGE: required/);
    assert.match(message, /FEED_BROKER_SECRET: must start with whsec_/);
    assert.doesNotMatch(message, /hunter/);
  });

  test('pull: FEED_URL as the listener or as the endpoint, and FEED_TOKEN', () => {
    for (const feedUrl of [
      'http://10.0.0.5:3002',
      'http://10.0.0.5:3002/',
      'http://10.0.0.5:3002/feed',
    ]) {
      const config = readConfig({
        LEDGER_DATABASE_URL: DATABASE,
        FEED_URL: feedUrl,
        FEED_TOKEN: 't'.repeat(24),
      });
      assert.deepEqual(config.pull, {
        feedUrl: 'http://10.0.0.5:3002/feed',
        token: 't'.repeat(24),
        limit: 100,
        waitSeconds: 20,
      });
      assert.equal(config.push, undefined);
    }
  });

  test('nothing set: every missing variable is named', () => {
    const message = problems({});
    assert.match(message, /LEDGER_DATABASE_URL: required/);
    assert.match(message, /FEED_HTTP_SECRET or FEED_URL: /);
  });

  test('bad values are named, and a secret or token is never repeated back', () => {
    const message = problems({
      LEDGER_DATABASE_URL: 'mysql://x',
      FEED_HTTP_SECRET: 'not-a-secret-value',
      PORT: 'eighty',
      FEED_TOKEN: 'token-value-1234567890abcdef',
    });
    assert.match(message, /LEDGER_DATABASE_URL: must be a postgres:\/\/ URL/);
    assert.match(message, /FEED_HTTP_SECRET: must start with whsec_/);
    assert.match(message, /PORT: must be an integer/);
    assert.match(message, /FEED_URL: required with FEED_TOKEN/);
    assert.doesNotMatch(message, /not-a-secret-value|token-value/);
    assert.match(
      problems({ LEDGER_DATABASE_URL: DATABASE, FEED_HTTP_SECRET: 'whsec_c2hvcnQ=' }),
      /24 to 64 bytes/,
    );
    assert.match(
      problems({ LEDGER_DATABASE_URL: DATABASE, FEED_URL: 'ftp://x/feed' }),
      /FEED_TOKEN: required/,
    );
  });
});
