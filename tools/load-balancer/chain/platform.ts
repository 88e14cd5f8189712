import { findEventModel } from '../../../src/receiver/index.ts';
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
export type ChainEvent = 'NPPReceivePayment' | 'PayToReceivePayment' | 'InboundDirectCredit';

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

/** Records in each InboundDirectCredit batch the chain makes. */
const DIRECT_CREDITS_PER_BATCH = 2;

/**
 * Whether the chain can include InboundDirectCredit: the body the sandbox sends for it (asked
 * for before anything is subscribed, so nobody is notified) must parse with the receiver's own
 * model, and the receivers' migrations must have made its table. Undefined when it can;
 * otherwise why not (the chain then leaves the event out rather than count a mismatch between
 * two works in progress as a loss).
 */
export async function directCreditUnsupported(
  platform: Platform,
  tableExists: (table: string) => Promise<boolean>,
): Promise<string | undefined> {
  const model = findEventModel('InboundDirectCredit');
  if (!model) return 'the receiver has no model for it';
  const response = await httpCall({
    url: new URL('/sandbox/payments', platform.url),
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      event: 'InboundDirectCredit',
      amount: '1.00',
      count: DIRECT_CREDITS_PER_BATCH,
    }),
    timeoutMs: 10_000,
    maxResponseBytes: SANDBOX_ANSWER_BYTES,
  });
  const answer = JSON.parse(response.body.toString('utf8')) as {
    payment?: unknown;
    statusDescription?: string;
  };
  if (response.status !== 200 || answer.payment === undefined)
    return `the sandbox refused to make one (${response.status} ${answer.statusDescription ?? ''})`;
  const parsed = model.parse(answer.payment);
  if (!parsed.ok) {
    const first = parsed.problems[0];
    return `the sandbox's body is not the receiver's shape (${first ? `${first.path || 'body'}: ${first.message}` : 'refused'})`;
  }
  if (!(await tableExists('direct_credits'))) return 'the database has no direct_credits table';
  return undefined;
}
