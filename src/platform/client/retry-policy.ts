import { retryBackoffMs } from '../../lib/backoff.ts';
import type { ProviderError } from './protocol/provider-error.ts';

/**
 * When to try a call again, and how long to wait. Only failures that say nothing about the
 * request itself are retried: no answer (timeout, broken connection), an unreadable 2xx, 5xx, 408
 * and 429. A 4xx or a non-`Ok` status would be refused again. Waits grow exponentially with
 * jitter (src/lib/backoff.ts: half to all of each step), so several instances recovering at once
 * do not hammer the platform in step; a `Retry-After` (seconds) is honoured up to the cap.
 */
export interface RetryPolicy {
  /** Total attempts, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 5000,
};

export function isTransient(error: ProviderError): boolean {
  if (error.kind === 'timeout' || error.kind === 'network') return true;
  // A 2xx we could not read (a proxy's page, a cut body): asking again with the same request
  // (the same nonce, for a refund) may get the answer we missed.
  if (error.kind === 'invalid-response') {
    const status = error.httpStatus ?? 0;
    return status >= 200 && status <= 299;
  }
  if (error.kind !== 'http' || error.httpStatus === undefined) return false;
  return error.httpStatus >= 500 || error.httpStatus === 408 || error.httpStatus === 429;
}

/** Wait before attempt `attempt + 1` (attempt counts from 1). */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  random: () => number,
  retryAfterSeconds?: number,
): number {
  if (retryAfterSeconds !== undefined && retryAfterSeconds >= 0) {
    return Math.min(retryAfterSeconds * 1000, policy.maxDelayMs);
  }
  // This policy's draw counts up from the short end (0 waits half the step), the shared
  // backoff's down from the full step: `1 - random()` keeps every wait where it was.
  return retryBackoffMs(attempt - 1, policy.baseDelayMs, policy.maxDelayMs, () => 1 - random());
}

/** `Retry-After` in seconds (the date form is ignored: clocks differ). */
export function retryAfterSeconds(headers: Headers | undefined): number | undefined {
  const value = headers?.get('retry-after')?.trim();
  return value !== undefined && /^\d{1,6}$/.test(value) ? Number(value) : undefined;
}
