import { z } from 'zod';
import {
  commaSeparated,
  flag,
  httpUrl,
  integer,
  isLoopbackHost,
  listenHost,
  MIB,
} from '../lib/config/kinds.ts';
import { defineSection, type OutputOf } from '../lib/config/section.ts';
import { variable } from '../lib/config/variable.ts';
import { parseWebhookSecret } from '../lib/webhook-secret.ts';

/**
 * The feed's settings (docs/feed.md), a door of their own: src/cli/config.ts composes them
 * without loading the feed. Positions always; pull endpoint and push relay when configured.
 */

/**
 * The push relay's URL carries payer details to the merchant. Credentials in it would be logged
 * and stored with every failed POST (the consumer authenticates us by the Standard Webhooks
 * signature instead), and plain http to another machine would send payer details unencrypted,
 * unless the operator says the network is private. The URL itself is never echoed.
 */
function relayUrlProblems(text: string, allowPlainHttp: boolean): string[] {
  const url = new URL(text);
  const problems: string[] = [];
  if (url.username !== '' || url.password !== '') {
    problems.push(
      'FEED_HTTP_URL: must not carry a user or password (they would be written to logs and feed_events.last_error); the consumer verifies each POST by its signature (FEED_HTTP_SECRET)',
    );
  }
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol === 'http:' && !loopback && !allowPlainHttp) {
    problems.push(
      'FEED_HTTP_URL: plain http only to 127.0.0.1, localhost or [::1] (payer details would travel unencrypted); use https, or set FEED_HTTP_ALLOW_PLAIN_HTTP=true on a private network',
    );
  }
  return problems;
}

export const feedSettings = defineSection({
  variables: {
    /** GET /feed is served (on its own listener) only when a token is set. */
    token: variable(
      'FEED_TOKEN',
      z.string().trim().min(24, 'must be at least 24 characters').optional(),
      {
        doc: 'enables `GET /feed` (pull) on its own listener; `Authorization: Bearer <token>`, at least 24 characters',
        secret: true,
        section: 'The feed (docs/feed.md): every stored event handed on, at least once',
        sectionNote:
          'A FEED_HTTP_SECRET: `echo whsec_$(openssl rand -base64 32)`. Retries of a push: FEED_RETRY_BASE_MS doubling up to FEED_RETRY_MAX_MS; after FEED_MAX_AGE_MS the event is dead-lettered (`npm run feed -- dead-letters`).',
      },
    ),
    port: variable('FEED_PORT', integer(0, 65_535).default(3002), {
      doc: 'port of the `GET /feed` listener',
    }),
    host: variable('FEED_HOST', listenHost.default('127.0.0.1'), {
      doc: 'interface of the `GET /feed` listener (loopback unless you open it)',
    }),
    pageMaxBytes: variable('FEED_PAGE_MAX_BYTES', integer(64 * 1024, 64 * MIB).default(8 * MIB), {
      doc: 'a `GET /feed` page stops before this size (at least one event)',
    }),
    assignIntervalMs: variable('FEED_ASSIGN_INTERVAL_MS', integer(10, 60_000).default(100), {
      doc: 'how often each instance assigns feed positions (one instance at a time)',
    }),
    poolMax: variable('FEED_DATABASE_POOL_MAX', integer(1, 50).default(2), {
      doc: "the feed's own connections per instance (assigner, relay, `GET /feed`)",
    }),
    url: variable('FEED_HTTP_URL', httpUrl.optional(), {
      doc: 'push every event here (the relay), signed per Standard Webhooks. https, or plain http to 127.0.0.1/localhost/[::1]; never a user or password in it',
      example: 'https://ledger.internal/monoova-events',
    }),
    allowPlainHttp: variable('FEED_HTTP_ALLOW_PLAIN_HTTP', flag.default(false), {
      doc: '`true`: allow plain http to another host (payer details unencrypted: a private network only)',
    }),
    secret: variable('FEED_HTTP_SECRET', z.string().optional(), {
      doc: 'required with the URL: `whsec_<base64 of 24-64 bytes>`; comma-separated to sign with several (rotation)',
      secret: true,
      example: 'whsec_...',
    }),
    timeoutMs: variable('FEED_HTTP_TIMEOUT_MS', integer(100, 120_000).default(10_000), {
      doc: 'timeout of each POST (a timeout is a failure, retried)',
    }),
    concurrency: variable('FEED_HTTP_CONCURRENCY', integer(1, 1000).default(8), {
      doc: 'POSTs in flight per instance (different business keys; one key is one at a time)',
    }),
    retryBaseMs: variable('FEED_RETRY_BASE_MS', integer(10, 3_600_000).default(1000), {
      doc: 'first retry wait, doubling per attempt, jittered (half to all of each step)',
    }),
    retryMaxMs: variable('FEED_RETRY_MAX_MS', integer(10, 86_400_000).default(300_000), {
      doc: 'longest retry wait',
    }),
    endpointsRefreshMs: variable('FEED_ENDPOINTS_REFRESH_MS', integer(100, 600_000).default(2000), {
      doc: 'how often each instance reads the feed endpoints again (an added, changed or disabled endpoint applies within this, no restart)',
    }),
    maxAgeMs: variable('FEED_MAX_AGE_MS', integer(1000, 2_592_000_000).default(259_200_000), {
      doc: 'retry for this long after the first attempt (3 days), then dead-letter (kept, counted)',
    }),
  },
  read({ url, allowPlainHttp, secret, ...e }, { problem }) {
    const { timeoutMs, concurrency, retryBaseMs, retryMaxMs, maxAgeMs, ...feed } = e;
    const secrets = commaSeparated(secret).map(parseWebhookSecret);
    for (const reason of secrets.filter((s) => typeof s === 'string')) {
      problem(`FEED_HTTP_SECRET: ${reason}`);
    }
    if (url && secrets.length === 0) problem('FEED_HTTP_SECRET: required with FEED_HTTP_URL');
    if (url) relayUrlProblems(url, allowPlainHttp).forEach(problem);
    /** The endpoint FEED_HTTP_URL declares (`configured`), when it is set. */
    const relay = url && {
      url,
      /** Key bytes of each FEED_HTTP_SECRET (several during a rotation). */
      secrets: secrets.filter((s): s is Buffer => typeof s !== 'string'),
      timeoutMs,
      concurrency,
      maxAgeMs,
    };
    /** Every endpoint's retries (the `configured` one's and those in feed_endpoints). */
    const retry = { baseMs: retryBaseMs, maxMs: Math.max(retryMaxMs, retryBaseMs) };
    return { feed: { ...feed, relay: relay || undefined, retry } };
  },
});

export type FeedConfig = OutputOf<typeof feedSettings>['feed'];
