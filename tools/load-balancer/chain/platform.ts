import { HttpCallError, httpCall } from '../../../src/lib/http-client.ts';
import { PUBLIC_KEY_PATH } from '../../../src/lib/platform-key.ts';
import { basicApiKey } from '../../sandbox/core/client.ts';
import { createSandboxKeys } from '../../sandbox/core/keys.ts';
import { createSandbox, type Sandbox } from '../../sandbox/sandbox.ts';
import type { NotificationRecord } from '../../sandbox/state/types.ts';
import type { Cleanup } from '../core/cleanup.ts';

export const MACCOUNT = '6279059700000001';

/** The sandbox's answers to the chain (a payment and its Webhookids) are a few KiB. */
const SANDBOX_ANSWER_BYTES = 1024 * 1024;

/** The events the chain subscribes to, each with a payment of its own. */
export const CHAIN_EVENTS = [
  'NPPReceivePayment',
  'PayToReceivePayment',
  'InboundDirectCredit',
] as const;
type ChainEvent = (typeof CHAIN_EVENTS)[number];

/** Records in each InboundDirectCredit batch the chain makes. */
const DIRECT_CREDITS_PER_BATCH = 2;

export interface Platform {
  url: string;
  apiKey: string;
  /** The receivers' SIGNING_KEY_URL. */
  keyUrl: string;
  sandbox: Sandbox;
  /** Every notification the sandbox made, with every attempt (the sandbox keeps 10,000). */
  notifications(): readonly NotificationRecord[];
  /** Subscribes `targetBase/webhooks/<event>` to each event, with the shared secret as token. */
  subscribe(
    targetBase: string,
    events: readonly ChainEvent[],
    securityToken: string,
  ): Promise<void>;
  /** One payment of `event` (the sandbox notifies its subscribers); answers its Webhookids. */
  pay(event: ChainEvent, sequence: number): Promise<string[]>;
  /** Resolves once nothing is queued, in flight or waiting for a retry; false after `limitMs`. */
  idle(limitMs: number): Promise<boolean>;
}

/**
 * The platform's stand-in, in the harness process: tools/sandbox with a fresh key (not saved),
 * its delivery engine retrying once after `retryDelayMs` (the platform's 30 s), on 127.0.0.1.
 */
export async function startPlatform(
  o: { retryDelayMs: number; apiKey: string },
  cleanup: Cleanup,
): Promise<Platform> {
  const keys = await createSandboxKeys({});
  const sandbox = createSandbox({
    credentials: { mAccount: MACCOUNT, apiKey: o.apiKey },
    keys,
    retryDelayMs: o.retryDelayMs,
    deliveryTimeoutMs: 10_000,
  });
  const server = await sandbox.listen(0, '127.0.0.1');
  cleanup.defer('stop the sandbox', async () => {
    sandbox.close();
    await server.close();
  });
  const call = async (path: string, body: unknown, auth?: string) => {
    const answer = await httpCall({
      url: new URL(path, server.url),
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(auth && { Authorization: auth }) },
      body: JSON.stringify(body),
      timeoutMs: 10_000,
      maxResponseBytes: SANDBOX_ANSWER_BYTES,
      accept: (status) => status === 200,
    }).catch((error: unknown) => {
      if (!(error instanceof HttpCallError) || error.kind !== 'status') throw error;
      throw new Error(`sandbox ${path}: ${error.status} ${error.body ?? ''}`);
    });
    return JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
  };
  return {
    url: server.url,
    apiKey: o.apiKey,
    keyUrl: `${server.url}${PUBLIC_KEY_PATH}`,
    sandbox,
    notifications: () => sandbox.deps.store.state.notifications,
    subscribe: async (targetBase, events, securityToken) => {
      for (const eventName of events) {
        await call(
          '/subscriptions/v1/create',
          {
            eventName,
            targetUrl: `${targetBase}/webhooks/${eventName}`,
            subscriptionStatus: 'On',
            securityToken,
          },
          basicApiKey(o.apiKey),
        );
      }
    },
    pay: async (event, sequence) => {
      const amount = `${(sequence % 900) + 1}.${String(sequence % 100).padStart(2, '0')}`;
      const answer = await call(
        '/sandbox/payments',
        event === 'InboundDirectCredit'
          ? { event, amount, count: DIRECT_CREDITS_PER_BATCH, LodgementRef: `lb chain ${sequence}` }
          : { event, amount, PaymentDescription: `lb chain ${sequence}` },
      );
      return (answer.webhookIds as string[] | undefined) ?? [];
    },
    idle: async (limitMs) => {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), limitMs);
      });
      const done = await Promise.race([sandbox.deps.engine.idle().then(() => true), limit]);
      clearTimeout(timer);
      return done;
    },
  };
}
