import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

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
 * The merchant's side of the push relay: an HTTP server on 127.0.0.1 that verifies every POST
 * with the stock Standard Webhooks library and records it by `webhook-id`. Its mode plays an
 * outage: `refusing` answers 503 (after reading the body), `silent` reads the body and never
 * answers (the relay times out); going back `up` drops the requests held in silence.
 */
export async function startFeedConsumer(): Promise<FeedConsumer> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const verifier = new Webhook(secret);
  const posts: ConsumerPost[] = [];
  const held = new Set<Socket>();
  let mode: ConsumerMode = 'up';

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413).end();
        return;
      }
      chunks.push(chunk);
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    let verified = true;
    try {
      verifier.verify(raw, req.headers as Record<string, string>);
    } catch {
      verified = false;
    }
    const post: ConsumerPost = {
      webhookId: String(req.headers['webhook-id'] ?? ''),
      raw,
      verified,
      status: 0,
      mode,
    };
    posts.push(post);
    if (!verified) post.status = 400;
    else if (mode === 'refusing') post.status = 503;
    else if (mode === 'up') post.status = 204;
    if (post.status !== 0) {
      res.writeHead(post.status).end();
      return;
    }
    held.add(req.socket);
    req.socket.once('close', () => held.delete(req.socket));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/feed-events`,
    secret,
    setMode: (next) => {
      mode = next;
      if (next !== 'silent') {
        for (const socket of held) socket.destroy();
        held.clear();
      }
    },
    posts: () => posts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of held) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
