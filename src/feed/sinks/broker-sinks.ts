import { createNatsSink, type NatsCredentials } from './nats-sink.ts';
import { createRabbitMqSink } from './rabbitmq-sink.ts';
import type { Sink } from './sink.ts';

/**
 * A broker endpoint's row (feed_endpoints: `target`, `options`, `credentials`) as the broker
 * sinks take it, for create-sink.ts's table of kinds. `options`: nats `{subject, stream?, user?}`,
 * rabbitmq `{exchange, user?}`; `credentials` is the password (with `user`) or, for NATS without
 * a user, the token. A row that does not fit throws, naming what is wrong (never the secret).
 */
export interface BrokerEndpoint {
  name?: string;
  target: string;
  options: Readonly<Record<string, unknown>>;
  credentials: string | null;
}

export function natsSinkFor(endpoint: BrokerEndpoint): Sink {
  const subject = text(endpoint.options, 'subject', true);
  const stream = text(endpoint.options, 'stream', false);
  const user = text(endpoint.options, 'user', false);
  refuseUrlCredentials(endpoint.target);
  let credentials: NatsCredentials | undefined;
  if (user !== undefined) credentials = { user, pass: endpoint.credentials ?? '' };
  else if (endpoint.credentials !== null) credentials = { token: endpoint.credentials };
  return createNatsSink({
    servers: endpoint.target,
    subjectPrefix: subject,
    ...(stream !== undefined && { stream }),
    ...(credentials && { credentials }),
    ...(endpoint.name !== undefined && { connectionName: `monoova-feed ${endpoint.name}` }),
  });
}

export function rabbitMqSinkFor(endpoint: BrokerEndpoint): Sink {
  const exchange = text(endpoint.options, 'exchange', true);
  const user = text(endpoint.options, 'user', false);
  refuseUrlCredentials(endpoint.target);
  if (user === undefined && endpoint.credentials !== null)
    throw new Error('a rabbitmq endpoint with credentials needs options.user');
  return createRabbitMqSink({
    url: endpoint.target,
    exchange,
    ...(user !== undefined && {
      credentials: { username: user, password: endpoint.credentials ?? '' },
    }),
    ...(endpoint.name !== undefined && { connectionName: `monoova-feed ${endpoint.name}` }),
  });
}

function text(options: Readonly<Record<string, unknown>>, key: string, required: true): string;
function text(
  options: Readonly<Record<string, unknown>>,
  key: string,
  required: false,
): string | undefined;
function text(options: Readonly<Record<string, unknown>>, key: string, required: boolean) {
  const value = options[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value === '')
    throw new Error(`options.${key} must be a non-empty string`);
  return value;
}

/** A password in the URL would be printed wherever the target is: it belongs in `credentials`. */
function refuseUrlCredentials(target: string) {
  for (const server of target.split(',')) {
    let url: URL;
    try {
      url = new URL(server.trim());
    } catch {
      throw new Error('the target is not a URL');
    }
    if (url.username || url.password)
      throw new Error('the target URL carries credentials: give them as the endpoint credentials');
  }
}
