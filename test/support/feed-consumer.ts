import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createPushHandler } from '../../examples/ledger-consumer/src/push-handler.js';
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
  /** How many signatures its `webhook-signature` carried (two while an endpoint rotates). */
  signatures: number;
}

/**
 * A consumer on 127.0.0.1: the example consumer's push handler (examples/ledger-consumer), which
 * verifies every POST with the stock Standard Webhooks library (`standardwebhooks`), here
 * answering what `answer` says (default 204) instead of storing. A POST whose signature does not
 * verify is refused and counted in `unverified`. `verifyWith` changes the secrets it verifies
 * with, as a consumer's deployment does when it moves over to a rotated secret.
 */
export async function startConsumer(options: {
  secret: string;
  answer?: (event: ReceivedEvent) => number;
  /** Hold the answer this long (to make the relay time out). */
  delayMs?: (event: ReceivedEvent) => number;
}) {
  const received: ReceivedEvent[] = [];
  let unverified = 0;
  let secrets = [options.secret];
  // A consumer that fails (a request cut while being read, a bug here) answers 500 if it still
  // can, and says why.
  const say = (msg: string, fields?: Record<string, unknown>) =>
    console.error(`test consumer: ${msg}`, fields ?? '');
  // A handler per request: it sees that request's signature header, and the secrets of the moment.
  const handler = (req: IncomingMessage, res: ServerResponse) =>
    createPushHandler({
      secrets,
      log: { info: say, warn: say, error: say },
      onRefused: () => {
        unverified += 1;
      },
      onVerified: async ({ event, webhookId }) => {
        const body = event as Record<string, unknown>;
        const data = body.data as { eventName: string; businessKey: string };
        const receivedEvent: ReceivedEvent = {
          webhookId,
          type: String(body.type),
          position: Number(body.position),
          key: `${data.eventName}/${data.businessKey}`,
          body,
          status: 0,
          signatures: String(req.headers['webhook-signature'] ?? '').split(' ').length,
        };
        receivedEvent.status = options.answer?.(receivedEvent) ?? 204;
        received.push(receivedEvent);
        const delay = options.delayMs?.(receivedEvent) ?? 0;
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
        return { status: receivedEvent.status };
      },
    })(req, res);
  let server: Server = createServer(handler);
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
    /** From now on, verify with these secrets only. */
    verifyWith: (given: string[]) => {
      secrets = given;
    },
    /** Stop listening: POSTs now meet a refused connection. */
    down: close,
    /** Listen again on the same port. */
    up: async () => {
      server = createServer(handler);
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
