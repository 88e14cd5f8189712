import { Buffer } from 'node:buffer';
import { URL } from 'node:url';

/**
 * Configuration from the environment, checked all at once: every problem is named, no value of
 * a secret or token is ever repeated back.
 *
 * @typedef {object} PushConfig
 * @property {string[]} secrets  `whsec_…` secrets, any of which may sign (a rotation)
 * @property {string} host
 * @property {number} port
 * @property {number} maxBodyBytes
 *
 * @typedef {object} PullConfig
 * @property {string} feedUrl  the full URL of `GET /feed`
 * @property {string} token
 * @property {number} limit
 * @property {number} waitSeconds
 *
 * @typedef {object} Config
 * @property {string} databaseUrl
 * @property {PushConfig | undefined} push
 * @property {PullConfig | undefined} pull
 * @property {import('./nats.js').NatsConfig | undefined} nats
 * @property {import('./rabbitmq.js').RabbitMqConfig | undefined} rabbitmq
 * @property {string[]} brokerSecrets  `whsec_…` the broker messages are signed with ([]: unsigned)
 */

export class ConfigError extends Error {
  /** @param {string[]} problems */
  constructor(problems) {
    super(`ledger-consumer: configuration refused:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const SECRET_PREFIX = 'whsec_';
const MIB = 1024 * 1024;

/**
 * @param {Record<string, string | undefined>} env
 * @returns {Config}
 */
export function readConfig(env) {
  /** @type {string[]} */
  const problems = [];
  const text = (/** @type {string} */ name) => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };

  const databaseUrl = text('LEDGER_DATABASE_URL');
  if (databaseUrl === undefined) {
    problems.push('LEDGER_DATABASE_URL: required (postgres://user@host:5432/ledger)');
  } else if (!/^postgres(ql)?:$/.test(urlOrUndefined(databaseUrl)?.protocol ?? '')) {
    problems.push('LEDGER_DATABASE_URL: must be a postgres:// URL');
  }

  const secretText = text('FEED_HTTP_SECRET');
  const feedUrlText = text('FEED_URL');
  const token = text('FEED_TOKEN');
  const natsUrl = text('NATS_URL');
  const amqpUrl = text('AMQP_URL');
  if (
    secretText === undefined &&
    feedUrlText === undefined &&
    token === undefined &&
    natsUrl === undefined &&
    amqpUrl === undefined
  ) {
    problems.push(
      "FEED_HTTP_SECRET or FEED_URL: set FEED_HTTP_SECRET to receive the relay's POSTs (push), " +
        'or FEED_URL and FEED_TOKEN to read GET /feed (pull), or NATS_URL or AMQP_URL to read ' +
        'a broker endpoint, or several',
    );
  }

  /** @type {PushConfig | undefined} */
  let push;
  if (secretText !== undefined) {
    const secrets = secretText
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    checkSecrets(problems, 'FEED_HTTP_SECRET', secrets);
    push = {
      secrets,
      host: text('HOST') ?? '127.0.0.1',
      port: integer(problems, 'PORT', text('PORT'), 3100, 0, 65_535),
      maxBodyBytes: integer(
        problems,
        'MAX_BODY_BYTES',
        text('MAX_BODY_BYTES'),
        16 * MIB,
        1024,
        1024 * MIB,
      ),
    };
  } else {
    for (const name of ['PORT', 'MAX_BODY_BYTES']) {
      if (text(name) !== undefined)
        problems.push(`${name}: only used with FEED_HTTP_SECRET (push)`);
    }
  }

  /** @type {PullConfig | undefined} */
  let pull;
  if (feedUrlText !== undefined || token !== undefined) {
    const url = feedUrlText === undefined ? undefined : urlOrUndefined(feedUrlText);
    if (feedUrlText === undefined) problems.push('FEED_URL: required with FEED_TOKEN');
    else if (url === undefined || !/^https?:$/.test(url.protocol)) {
      problems.push('FEED_URL: must be an http(s) URL, e.g. http://127.0.0.1:3002/feed');
    } else if (url.username !== '' || url.password !== '') {
      problems.push('FEED_URL: must not carry a user or password (FEED_TOKEN is the credential)');
    }
    if (token === undefined)
      problems.push("FEED_TOKEN: required with FEED_URL (the receiver's FEED_TOKEN)");
    if (url !== undefined) {
      // Given as the listener (http://host:3002) or as the endpoint (http://host:3002/feed).
      if (!url.pathname.endsWith('/feed'))
        url.pathname = `${url.pathname.replace(/\/+$/, '')}/feed`;
      url.search = '';
    }
    pull = {
      feedUrl: url?.toString() ?? '',
      token: token ?? '',
      limit: integer(problems, 'FEED_PAGE_LIMIT', text('FEED_PAGE_LIMIT'), 100, 1, 500),
      waitSeconds: integer(problems, 'FEED_WAIT_SECONDS', text('FEED_WAIT_SECONDS'), 20, 0, 30),
    };
  }

  const brokers = readBrokers(problems, text, natsUrl, amqpUrl);

  if (problems.length > 0) throw new ConfigError(problems);
  return { databaseUrl: /** @type {string} */ (databaseUrl), push, pull, ...brokers };
}

/**
 * NATS_… and AMQP_…: the receiver's broker endpoints this consumer reads, and the secrets
 * (FEED_BROKER_SECRET) their messages are signed with.
 *
 * @param {string[]} problems
 * @param {(name: string) => string | undefined} text
 * @param {string | undefined} natsUrl
 * @param {string | undefined} amqpUrl
 */
function readBrokers(problems, text, natsUrl, amqpUrl) {
  /** @type {import('./nats.js').NatsConfig | undefined} */
  let nats;
  if (natsUrl !== undefined) {
    const servers = natsUrl.split(',').map((server) => server.trim());
    for (const server of servers)
      brokerUrlProblem(problems, 'NATS_URL', server, /^(nats|tls):$/, 'nats:// (or tls://)');
    const stream = text('NATS_STREAM');
    if (stream === undefined)
      problems.push("NATS_STREAM: required with NATS_URL (the endpoint's stream)");
    const user = text('NATS_USER');
    const password = text('NATS_PASSWORD');
    const token = text('NATS_TOKEN');
    if ((user === undefined) !== (password === undefined))
      problems.push('NATS_USER and NATS_PASSWORD: give both or neither');
    if (token !== undefined && user !== undefined)
      problems.push('NATS_TOKEN: not with NATS_USER (one or the other)');
    nats = {
      servers,
      stream: stream ?? '',
      consumer: text('NATS_CONSUMER') ?? 'ledger',
      credentials:
        user !== undefined
          ? { user, pass: password ?? '' }
          : token !== undefined
            ? { token }
            : undefined,
    };
  }
  /** @type {import('./rabbitmq.js').RabbitMqConfig | undefined} */
  let rabbitmq;
  if (amqpUrl !== undefined) {
    brokerUrlProblem(problems, 'AMQP_URL', amqpUrl, /^amqps?:$/, 'amqp:// (or amqps://)');
    const exchange = text('AMQP_EXCHANGE');
    if (exchange === undefined)
      problems.push("AMQP_EXCHANGE: required with AMQP_URL (the endpoint's exchange)");
    const user = text('AMQP_USER');
    const password = text('AMQP_PASSWORD');
    if ((user === undefined) !== (password === undefined))
      problems.push('AMQP_USER and AMQP_PASSWORD: give both or neither');
    rabbitmq = {
      url: amqpUrl,
      exchange: exchange ?? '',
      queue: text('AMQP_QUEUE') ?? 'ledger',
      credentials: user !== undefined ? { username: user, password: password ?? '' } : undefined,
    };
  }
  const secretText = text('FEED_BROKER_SECRET');
  const brokerSecrets = (secretText ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (secretText !== undefined && nats === undefined && rabbitmq === undefined)
    problems.push('FEED_BROKER_SECRET: only used with NATS_URL or AMQP_URL');
  checkSecrets(problems, 'FEED_BROKER_SECRET', brokerSecrets);
  return { nats, rabbitmq, brokerSecrets };
}

/**
 * @param {string[]} problems
 * @param {string} name
 * @param {string} value
 * @param {RegExp} protocols
 * @param {string} example
 */
function brokerUrlProblem(problems, name, value, protocols, example) {
  const url = urlOrUndefined(value);
  if (url === undefined || !protocols.test(url.protocol)) {
    problems.push(`${name}: must be a ${example} URL`);
  } else if (url.username !== '' || url.password !== '') {
    problems.push(`${name}: must not carry a user or password (give them apart)`);
  }
}

/**
 * @param {string[]} problems
 * @param {string} name
 * @param {string[]} secrets
 */
function checkSecrets(problems, name, secrets) {
  secrets.forEach((secret, i) => {
    const why = secretProblem(secret);
    if (why) problems.push(`${name}${secrets.length > 1 ? ` (#${i + 1})` : ''}: ${why}`);
  });
}

/**
 * Why a Standard Webhooks secret is not usable (the receiver checks the same), or undefined.
 *
 * @param {string} secret
 */
function secretProblem(secret) {
  if (!secret.startsWith(SECRET_PREFIX))
    return `must start with ${SECRET_PREFIX} (the receiver's FEED_HTTP_SECRET)`;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    return `must be ${SECRET_PREFIX} followed by base64`;
  }
  const bytes = Buffer.from(encoded, 'base64').length;
  return bytes < 24 || bytes > 64 ? 'must hold 24 to 64 bytes (base64 after whsec_)' : undefined;
}

/**
 * @param {string[]} problems
 * @param {string} name
 * @param {string | undefined} raw
 * @param {number} fallback
 * @param {number} min
 * @param {number} max
 */
function integer(problems, name, raw, fallback, min, max) {
  if (raw === undefined) return fallback;
  const value = /^\d{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) {
    problems.push(`${name}: must be an integer from ${min} to ${max}`);
    return fallback;
  }
  return value;
}

/** @param {string} text */
function urlOrUndefined(text) {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
