import { isLoopbackHost } from '../../lib/config/kinds.ts';
import type { Endpoint } from './endpoint-store.ts';

type EndpointKind = Endpoint['kind'];

/**
 * Where an endpoint sends, checked before it is stored. The rules are FEED_HTTP_URL's
 * (src/feed/config.ts): an HTTP endpoint gets payer details, so https, or plain http only to
 * this machine; and no user or password in any URL, a broker's included: a URL is printed by
 * `endpoints list` and may reach a log or an error, so a broker's password is given in a file
 * (`--credentials-file`) and kept apart (feed_endpoints.credentials, never printed).
 */

/** The schemes each kind accepts. */
const SCHEMES: Record<EndpointKind, readonly string[]> = {
  http: ['https:', 'http:'],
  nats: ['nats:', 'tls:'],
  rabbitmq: ['amqp:', 'amqps:'],
};

/** Why `text` is not a target for an endpoint of `kind`; empty when it is one. */
export function targetProblems(kind: EndpointKind, text: string): string[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [`not a URL (expected ${SCHEMES[kind].map((s) => `${s}//…`).join(' or ')})`];
  }
  const problems: string[] = [];
  if (!SCHEMES[kind].includes(url.protocol)) {
    problems.push(`a ${kind} endpoint's URL starts with ${SCHEMES[kind].join(' or ')}`);
  }
  if (url.username !== '' || url.password !== '') {
    problems.push(
      kind === 'http'
        ? 'no user or password in the URL (it is printed and logged); the consumer verifies each message by its signature'
        : "no user or password in the broker's URL (it is printed and logged); give the password in --credentials-file",
    );
  }
  if (kind === 'http' && url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    problems.push(
      'plain http only to 127.0.0.1, localhost or [::1] (payer details would travel unencrypted); use https',
    );
  }
  return problems;
}

/** NATS subject prefix: dot-separated tokens, no wildcards (the event type is appended). */
const SUBJECT = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
/** JetStream stream names: no dots, spaces or wildcards. */
const STREAM = /^[A-Za-z0-9_-]{1,64}$/;
/** AMQP 0-9-1 exchange names: letters, digits, hyphen, underscore, period, colon. */
const EXCHANGE = /^[A-Za-z0-9_.:-]{1,255}$/;

/** The broker settings an endpoint of `kind` needs (feed_endpoints.options), or the problems. */
export function brokerOptions(
  kind: EndpointKind,
  given: { subject?: string; stream?: string; exchange?: string; user?: string },
): { options: Record<string, string> } | { problems: string[] } {
  const problems: string[] = [];
  const misplaced = (flag: string, value: string | undefined, allowed: boolean) => {
    if (value !== undefined && !allowed)
      problems.push(`--${flag} is for a ${flagKind[flag]} endpoint`);
  };
  const flagKind: Record<string, string> = {
    subject: 'nats',
    stream: 'nats',
    exchange: 'rabbitmq',
  };
  misplaced('subject', given.subject, kind === 'nats');
  misplaced('stream', given.stream, kind === 'nats');
  misplaced('exchange', given.exchange, kind === 'rabbitmq');
  const options: Record<string, string> = {};
  if (kind === 'nats') {
    if (given.subject === undefined) problems.push('a nats endpoint needs --subject PREFIX');
    else if (!SUBJECT.test(given.subject)) {
      problems.push('--subject: dot-separated tokens of letters, digits, _ and -, no wildcards');
    } else options.subject = given.subject;
    if (given.stream !== undefined) {
      if (STREAM.test(given.stream)) options.stream = given.stream;
      else problems.push('--stream: up to 64 letters, digits, _ and -');
    }
  }
  if (kind === 'rabbitmq') {
    if (given.exchange === undefined) problems.push('a rabbitmq endpoint needs --exchange NAME');
    else if (!EXCHANGE.test(given.exchange)) {
      problems.push('--exchange: letters, digits, _ - . and :, up to 255');
    } else options.exchange = given.exchange;
  }
  if (given.user !== undefined) {
    if (kind === 'http') problems.push('--user is for a broker (nats, rabbitmq)');
    else if (!BROKER_USER.test(given.user))
      problems.push('--user: up to 128 printable characters, no spaces');
    else options.user = given.user;
  }
  return problems.length > 0 ? { problems } : { options };
}

/** A broker's user name (kept in options, shown by `show`; its password is the credentials). */
const BROKER_USER = /^[!-~]{1,128}$/;
