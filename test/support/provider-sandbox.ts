import {
  createProviderClient,
  type ProviderClientOptions,
} from '../../src/platform/client/provider-client.ts';
import type { Db } from '../../src/lib/database/database.ts';
import { PUBLIC_KEY_PATH } from '../../src/lib/platform-key.ts';
import { postBytes } from '../../tools/common/post-delivery.ts';
import { signBody } from '../../tools/common/signing.ts';
import { CREDENTIALS, subscribe, type TestSandbox } from '../../tools/sandbox/test/support.ts';
import { startReceiver } from '../../tools/sandbox/test/receiver.ts';
import { deliveryHeaders } from '../../tools/sandbox/webhooks/attempt-delivery.ts';
import { freshWebhookId } from './deliveries.ts';

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
export function startSandboxReceiver(
  db: Db,
  sandboxUrl: string,
  port = 0,
): Promise<{ url: string; close(): Promise<void> }> {
  return startReceiver(db, `${sandboxUrl}${PUBLIC_KEY_PATH}`, [SUBSCRIPTION_SECRET], port);
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

/**
 * One delivery as the platform sends it to the receiver at `receiverUrl` (a real socket): `body`
 * as given, signed with the sandbox's key of the moment, with the subscriptions' secret. Its
 * answer's status (200 stored, 400 quarantined).
 */
export async function deliverSigned(
  receiverUrl: string,
  sandbox: Pick<TestSandbox, 'keys'>,
  eventName: string,
  body: string,
): Promise<number> {
  const bytes = Buffer.from(body, 'utf8');
  const signature = signBody(bytes, sandbox.keys.current().privateKey);
  const answer = await postBytes(new URL(`/webhooks/${eventName}`, receiverUrl), {
    headers: deliveryHeaders(freshWebhookId(), signature, SUBSCRIPTION_SECRET),
    body: bytes,
    timeoutMs: 5000,
  });
  return answer.status;
}
