import { postBytes } from '../../common/post-delivery.ts';
import { signBody as signDelivery } from '../../common/signing.ts';
import type { SandboxClock } from '../core/clock.ts';
import type { Faults } from '../core/faults.ts';
import type { SandboxKeys } from '../core/keys.ts';
import type { Attempt, NotificationRecord } from '../state/types.ts';
import { postAndAbandon } from './abandon-post.ts';

export interface AttemptContext {
  keys: SandboxKeys;
  faults: Faults;
  clock: SandboxClock;
  timeoutMs: number;
  /** The subscription's token, echoed as `Authorisation`; none: the header is left out. */
  securityToken: string | undefined;
}

/**
 * The platform's delivery headers, in its spelling: the subscription's token is echoed as
 * `Authorisation` (none or empty: the header is left out).
 */
export function deliveryHeaders(
  webhookId: string,
  signature: string,
  securityToken: string | undefined,
  contentType = 'application/json',
): Record<string, string> {
  return {
    'Content-Type': contentType,
    Webhookid: webhookId,
    ...(securityToken && { Authorisation: securityToken }),
    'Verification-Signature': signature,
  };
}

/**
 * One POST of a notification as the platform sends it, signed with the key of the moment, and
 * what came of it. Never throws: a network error, a timeout or an armed fault is an attempt
 * without a response code.
 */
export async function attemptDelivery(
  notification: NotificationRecord,
  kind: Attempt['kind'],
  context: AttemptContext,
): Promise<Attempt> {
  const started = performance.now();
  const base = { kind, atMs: context.clock.now().getTime() };
  const took = () => Math.round(performance.now() - started);
  const body = Buffer.from(notification.body, 'utf8');
  const url = new URL(notification.url);
  const headers = deliveryHeaders(
    notification.webhookId,
    signDelivery(body, context.keys.current().privateKey),
    context.securityToken,
  );
  if (context.faults.take('webhook-fail')) {
    return { ...base, error: 'not delivered (sandbox fault webhook-fail)', durationMs: took() };
  }
  if (context.faults.take('webhook-timeout')) {
    await postAndAbandon(url, headers, body);
    return {
      ...base,
      error: 'answer not awaited (sandbox fault webhook-timeout)',
      durationMs: took(),
    };
  }
  try {
    const answer = await postBytes(url, { headers, body, timeoutMs: context.timeoutMs });
    return {
      ...base,
      responseCode: answer.status,
      responseBody: answer.body.toString('utf8', 0, 500),
      durationMs: took(),
    };
  } catch (error) {
    return { ...base, error: (error as Error).message || 'network error', durationMs: took() };
  }
}
