import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../../src/lib/logger.ts';
import { createFetchedKeySource, type SigningKeySource } from '../../../src/receiver/index.ts';
import { buildTestApp, type TestAppOptions } from '../../../test/support/test-app.ts';
import { closeServer } from '../core/close-server.ts';

/** The real receiver in front of the sandbox, shared by the demo and simulate tests. */

/**
 * The receiver's key source, fetching from `url` (the sandbox's key endpoint). No throttle: a
 * forgery is then checked against a fresh key at once and answered 401.
 */
export function fetchedKeys(url: string): SigningKeySource {
  return createFetchedKeySource({
    url,
    allowHttp: true,
    fetchTimeoutMs: 5000,
    refreshCooldownMs: 0,
    retryIntervalMs: 0,
    now: Date.now,
    logger: createLogger('silent'),
  });
}

export interface TestReceiver {
  url: string;
  port: number;
  server: Server;
  /** Drops its connections and closes it. */
  close(): Promise<void>;
}

/** The receiver on a real socket (127.0.0.1; port 0: any). */
export async function serveReceiver(
  db: TestAppOptions['db'],
  keys: SigningKeySource,
  secrets: string[],
  port = 0,
): Promise<TestReceiver> {
  const server = buildTestApp({ db, keys, secrets }).app.listen(port, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    server,
    close: () => closeServer(server),
  };
}

/** Both: a receiver trusting `keyUrl`; close() also stops its key source. */
export async function startReceiver(
  db: TestAppOptions['db'],
  keyUrl: string,
  secrets: string[],
  port = 0,
): Promise<TestReceiver & { keys: SigningKeySource }> {
  const keys = fetchedKeys(keyUrl);
  const receiver = await serveReceiver(db, keys, secrets, port);
  return {
    ...receiver,
    keys,
    close: async () => {
      keys.stop();
      await receiver.close();
    },
  };
}
