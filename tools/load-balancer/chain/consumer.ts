import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPushHandler } from '../../../examples/ledger-consumer/src/push-handler.js';

/** What the consumer does with a POST right now. */
type ConsumerMode = 'up' | 'refusing' | 'silent';

/** One POST the relay made, and how it ended here. */
export interface ConsumerPost {
  /** The `webhook-id` header (`evt_<id>`). */
  webhookId: string;
  /** The body exactly as it arrived (the bytes the signature covers). */
  raw: string;
  verified: boolean;
  /** 2xx: delivered. 503: refused. 0: never answered (the relay timed out). */
  status: number;
  mode: ConsumerMode;
}

export interface FeedConsumer {
  url: string;
  /** `whsec_…`: the receivers' FEED_HTTP_SECRET. */
  secret: string;
  setMode(mode: ConsumerMode): void;
  posts(): readonly ConsumerPost[];
  close(): Promise<void>;
}

/** A body larger than this is not read (the relay's events are a few kB). */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The merchant's side of the push relay: the example consumer's push handler
 * (examples/ledger-consumer), which verifies every POST with the stock Standard Webhooks
 * library, on 127.0.0.1, recording each POST by `webhook-id` instead of storing it. Its mode
 * plays an outage: `refusing` answers 503 (after reading the body), `silent` reads the body and
 * never answers (the relay times out); going back `up` drops the requests held in silence.
 */
export async function startFeedConsumer(): Promise<FeedConsumer> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const posts: ConsumerPost[] = [];
  /** Each held request's release: its connection closed without an answer. */
  const held = new Set<() => void>();
  let mode: ConsumerMode = 'up';
  const release = () => {
    for (const drop of held) drop();
    held.clear();
  };
  const quiet = () => {};

  const handler = createPushHandler({
    secrets: [secret],
    maxBodyBytes: MAX_BODY_BYTES,
    log: { info: quiet, warn: quiet, error: quiet },
    onRefused: ({ raw, webhookId, status }) => {
      posts.push({
        webhookId: webhookId ?? '',
        raw: raw.toString('utf8'),
        verified: false,
        status,
        mode,
      });
    },
    onVerified: ({ raw, webhookId }) => {
      const post: ConsumerPost = {
        webhookId,
        raw: raw.toString('utf8'),
        verified: true,
        status: 0,
        mode,
      };
      posts.push(post);
      if (mode === 'refusing') post.status = 503;
      else if (mode === 'up') post.status = 204;
      if (post.status !== 0) return Promise.resolve({ status: post.status });
      return new Promise((resolve) => held.add(() => resolve(null)));
    },
  });
  const server = createServer(handler);
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/feed-events`,
    secret,
    setMode: (next) => {
      mode = next;
      if (next !== 'silent') release();
    },
    posts: () => posts,
    close: () =>
      new Promise<void>((resolve) => {
        release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
