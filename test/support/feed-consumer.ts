import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { createDatabaseWithPool } from '../../src/lib/database/database.ts';
import { parseWebhookSecret } from '../../src/lib/webhook-secret.ts';

/** A fresh Standard Webhooks secret, `whsec_<base64 of 32 random bytes>`. */
export function newWebhookSecret(): { text: string; key: Buffer } {
  const text = `whsec_${randomBytes(32).toString('base64')}`;
  return { text, key: parseWebhookSecret(text) as Buffer };
}

/** The feed's own pool and Kysely for a test database (the relay and reader take the Kysely). */
export function feedDatabase(url: string, poolMax = 4) {
  return createDatabaseWithPool({ url, poolMax });
}

export interface ReceivedEvent {
  webhookId: string;
  type: string;
  position: number;
  /** `<eventName>/<businessKey>`: the unit of ordering. */
  key: string;
  body: Record<string, unknown>;
  status: number;
}

/**
 * A consumer on 127.0.0.1 that verifies every POST with the stock Standard Webhooks library
 * (`standardwebhooks`) and answers what `answer` says (default 204). A POST whose signature
 * does not verify is answered 400 and counted in `unverified`.
 */
export async function startConsumer(options: {
  secret: string;
  answer?: (event: ReceivedEvent) => number;
  /** Hold the answer this long (to make the relay time out). */
  delayMs?: (event: ReceivedEvent) => number;
}) {
  const verifier = new Webhook(options.secret);
  const received: ReceivedEvent[] = [];
  let unverified = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const payload = Buffer.concat(chunks).toString('utf8');
    let body: Record<string, unknown>;
    try {
      body = verifier.verify(payload, req.headers as Record<string, string>) as Record<
        string,
        unknown
      >;
    } catch {
      unverified += 1;
      res.writeHead(400).end();
      return;
    }
    const data = body.data as { eventName: string; businessKey: string };
    const event: ReceivedEvent = {
      webhookId: String(req.headers['webhook-id']),
      type: String(body.type),
      position: Number(body.position),
      key: `${data.eventName}/${data.businessKey}`,
      body,
      status: 0,
    };
    event.status = options.answer?.(event) ?? 204;
    received.push(event);
    const delay = options.delayMs?.(event) ?? 0;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    if (!res.destroyed) res.writeHead(event.status).end();
  };
  // A consumer that fails (a request cut while being read, a bug here) answers 500 if it still
  // can, and says why.
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      console.error('test consumer failed', error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };
  let server: Server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** Events answered 2xx, in arrival order. */
    accepted: () => received.filter((e) => e.status >= 200 && e.status < 300),
    unverified: () => unverified,
    /** Stop listening: POSTs now meet a refused connection. */
    down: close,
    /** Listen again on the same port. */
    up: async () => {
      server = createServer(serve);
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    close,
  };
}

/** Polls `check` until it holds or `timeoutMs` passes (generous: the machine is shared). */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
