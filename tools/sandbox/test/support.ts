import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { closeServer } from '../core/close-server.ts';
import { sandboxClient, type Call } from '../core/client.ts';
import { createSandboxKeys, type SandboxKeys } from '../core/keys.ts';
import { createSandbox, type Sandbox, type SandboxOptions } from '../sandbox.ts';

export const CREDENTIALS = { mAccount: '6279059700000001', apiKey: 'test-api-key-1234' };

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

export interface TestSandbox {
  url: string;
  call: Call;
  sandbox: Sandbox;
  keys: SandboxKeys;
}

let sharedKeys: Promise<SandboxKeys> | undefined;

/**
 * A sandbox on a real socket (127.0.0.1, any port), closed after the test. The key is made once
 * per file (generation is slow), unless a test rotates it and asks for its own. `dialect`
 * (default `any`) chooses which requests it accepts (dialect.ts).
 */
export async function startTestSandbox(
  options: Partial<SandboxOptions> & { ownKeys?: boolean } = {},
): Promise<TestSandbox> {
  const keys =
    options.keys ??
    (options.ownKeys ? await createSandboxKeys({}) : await (sharedKeys ??= createSandboxKeys({})));
  const sandbox = createSandbox({
    credentials: CREDENTIALS,
    retryDelayMs: 100,
    deliveryTimeoutMs: 5000,
    ...options,
    keys,
  });
  const server = await sandbox.listen(0, '127.0.0.1');
  cleanup.push(
    () => server.close(),
    () => sandbox.close(),
  );
  return { url: server.url, call: sandboxClient(server.url, CREDENTIALS.apiKey), sandbox, keys };
}

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A webhook subscriber on a real socket: records every request, answers what `answer` says. */
export async function startSubscriber(
  answer: (request: Received, index: number) => number | 'hang' = () => 200,
): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      received.push(request);
      const status = answer(request, received.length - 1);
      if (status !== 'hang')
        res.writeHead(status, { 'Content-Type': 'application/json' }).end('{"status":"x"}');
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  cleanup.push(() => closeServer(server));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** Subscribes `url/<event>` to each event, with a security token. */
export async function subscribe(
  call: Call,
  url: string,
  events: string[],
  securityToken = 'Basic dG9rZW4=',
): Promise<void> {
  for (const eventName of events) {
    const answer = await call('POST', '/subscriptions/v1/create', {
      body: {
        eventName,
        targetUrl: `${url}/${eventName}`,
        subscriptionStatus: 'On',
        securityToken,
      },
    });
    if (answer.status !== 200) throw new Error(`subscribe ${eventName}: ${answer.text}`);
  }
}

/** Polls until `check` holds (at most `ms`), for things that happen after an answer. */
export async function eventually(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
