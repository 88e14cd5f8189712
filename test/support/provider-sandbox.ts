import type { Server } from 'node:http';
import { createLogger } from '../../src/lib/logger.ts';
import {
  createProviderClient,
  type ProviderClientOptions,
} from '../../src/platform/client/provider-client.ts';
import type { Db } from '../../src/lib/database/database.ts';
import { createFetchedKeySource } from '../../src/receiver/verification/fetched-key-source.ts';
import { closeServer } from '../../tools/sandbox/core/close-server.ts';
import { CREDENTIALS, subscribe, type TestSandbox } from '../../tools/sandbox/test/support.ts';
import { buildTestApp } from './test-app.ts';

/** The shared secret the sandbox's subscriptions carry and the test receiver accepts. */
export const SUBSCRIPTION_SECRET = 'Basic cmVjb3Zlcnktc2VjcmV0';

/** The provider client pointed at a sandbox, with its credentials and quick retries. */
export function sandboxProviderClient(
  sandboxUrl: string,
  overrides: Partial<ProviderClientOptions> = {},
) {
  return createProviderClient({
    baseUrl: sandboxUrl,
    authUrl: sandboxUrl,
    apiKey: CREDENTIALS.apiKey,
    mAccount: CREDENTIALS.mAccount,
    timeoutMs: 5000,
    retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 },
    ...overrides,
  });
}

/** The real receiver on a real socket (port 0: any), trusting the sandbox's key endpoint. */
export async function startSandboxReceiver(
  db: Db,
  sandboxUrl: string,
  port = 0,
): Promise<{ url: string; close(): Promise<void> }> {
  const keys = createFetchedKeySource({
    url: `${sandboxUrl}/public/v1/certificate/public-key`,
    allowHttp: true,
    fetchTimeoutMs: 5000,
    // No throttle: a forgery is checked against a fresh key at once (401, not 503).
    refreshCooldownMs: 0,
    retryIntervalMs: 0,
    now: Date.now,
    logger: createLogger('silent'),
  });
  const server: Server = buildTestApp({ db, keys, secrets: [SUBSCRIPTION_SECRET] }).app.listen(
    port,
    '127.0.0.1',
  );
  await new Promise((resolve) => server.once('listening', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`,
    close: async () => {
      keys.stop();
      await closeServer(server);
    },
  };
}

/**
 * A payment the sandbox sends and the real receiver (on `db`) stores, as on the platform: the
 * receiver subscribed, the notification delivered and answered before this returns.
 */
export async function paymentStoredThroughSandbox(
  db: Db,
  sandbox: TestSandbox,
  fields: Record<string, unknown> = {},
): Promise<{ transactionId: string; webhookId: string }> {
  const receiver = await startSandboxReceiver(db, sandbox.url);
  try {
    await subscribe(
      sandbox.call,
      `${receiver.url}/webhooks`,
      ['NPPReceivePayment'],
      SUBSCRIPTION_SECRET,
    );
    const answer = await sandbox.call('POST', '/sandbox/payments?wait=true', {
      body: { event: 'NPPReceivePayment', amount: '40.00', ...fields },
    });
    if (answer.status !== 200) throw new Error(`sandbox payment: ${answer.text}`);
    const body = answer.body as { payment: { TransactionId: string }; webhookIds: string[] };
    return { transactionId: body.payment.TransactionId, webhookId: body.webhookIds[0] ?? '' };
  } finally {
    await receiver.close();
  }
}
