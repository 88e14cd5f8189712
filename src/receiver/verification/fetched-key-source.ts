import type { Logger } from 'pino';
import { describeError } from '../../lib/describe-error.ts';
import { DEFAULT_MAX_KEY_BYTES, checkKeyUrl, fetchSigningKey } from './key-fetch.ts';
import type { RefreshResult, SigningKey, SigningKeySource } from './key-source.ts';
import { keyFingerprint } from './public-key.ts';
import { retryBackoffMs } from '../../lib/backoff.ts';
import { scheduleUnref, type Schedule } from './schedule.ts';
import { signingKeySettings } from './settings.ts';

/**
 * The platform's key, fetched from its endpoint and cached. One fetch in flight at a time; every
 * caller during a fetch shares it.
 *
 * The platform retries a failed delivery once, 30 s later. So after a failed signature a refetch
 * is throttled only to one per `refreshCooldownMs` (a few seconds, at most 10 s), never by the
 * key's age: whatever fetch came just before (start-up, scheduled refresh, a forger's failure),
 * the retry of a delivery signed with a rotated key finds the window over and fetches the new
 * key. A forged flood costs at most one fetch per window.
 */

/** Bounds that keep a refetch (and the fetch it may wait for) well inside the platform's 30 s. */
const MAX_REFRESH_COOLDOWN_MS = 10_000;
const MAX_FETCH_TIMEOUT_MS = 10_000;

export interface FetchedKeySourceOptions {
  url: string;
  /** At most MAX_FETCH_TIMEOUT_MS. */
  fetchTimeoutMs: number;
  /** After a failed signature, the least time since the last fetch began; at most MAX_REFRESH_COOLDOWN_MS. */
  refreshCooldownMs: number;
  /** While no key is held, the least time between fetches a delivery may cause. */
  retryIntervalMs: number;
  /** While no key is held, background attempts wait this long at first (default 500 ms), doubling... */
  retryBackoffFirstMs?: number;
  /** ...up to this (default 5 s), each with jitter. */
  retryBackoffMaxMs?: number;
  /** Plain http is for tests against a local server only. */
  allowHttp: boolean;
  now: () => number;
  logger: Logger;
  /** Replaces Node's fetch (tests). */
  fetch?: typeof fetch;
  maxBytes?: number;
  /** Refetch this often in the background (0 or absent: only on demand). */
  refreshIntervalMs?: number;
  /** Told about every fetch, for metrics. */
  onFetch?: (result: KeyFetchResult) => void;
  /** Timers; tests pass a clock they move by hand. */
  schedule?: Schedule;
  /** For the back-off jitter; [0, 1). */
  random?: () => number;
}

/**
 * `fetched`: the first key of this process, or the same key as held; `changed`: a different key
 * replaced the one held (a rotation: what the SigningKeyChanged alert counts, so not every start).
 */
export type KeyFetchResult = 'fetched' | 'changed' | 'failed';

export function createFetchedKeySource(options: FetchedKeySourceOptions): SigningKeySource {
  const url = checkKeyUrl(options.url, options.allowHttp);
  checkBounds(options);
  const { now, logger } = options;
  const schedule = options.schedule ?? scheduleUnref;
  const stopper = new AbortController();

  let held: SigningKey | undefined;
  let inFlight: Promise<SigningKey | undefined> | undefined;
  let lastAttemptAt: number | undefined;
  /** When the last successful fetch began: the held key was the platform's key at that time. */
  let confirmedAt: number | undefined;
  let started = false;
  const cancels = new Set<() => void>();

  /** Single flight: every caller during a fetch shares its promise. Never rejects. */
  function fetchOnce(reason: string): Promise<SigningKey | undefined> {
    inFlight ??= attempt(reason).finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  }

  async function attempt(reason: string): Promise<SigningKey | undefined> {
    const startedAt = now();
    lastAttemptAt = startedAt;
    try {
      const key = await fetchSigningKey(url, {
        timeoutMs: options.fetchTimeoutMs,
        maxBytes: options.maxBytes ?? DEFAULT_MAX_KEY_BYTES,
        ...(options.fetch && { fetch: options.fetch }),
        signal: stopper.signal,
      });
      const fingerprint = keyFingerprint(key);
      const changed = held !== undefined && held.fingerprint !== fingerprint;
      options.onFetch?.(changed ? 'changed' : 'fetched');
      if (held?.fingerprint !== fingerprint) {
        held = { key, fingerprint, obtainedAt: now(), origin: 'fetched' };
      }
      confirmedAt = startedAt;
      logger.info(
        { url, reason, fingerprint, changed, durationMs: now() - startedAt },
        changed ? 'signing key fetched: the key has changed' : 'signing key fetched',
      );
    } catch (error) {
      options.onFetch?.('failed');
      logger.warn(
        {
          url,
          reason,
          error: describeError(error),
          keptFingerprint: held?.fingerprint ?? null,
          durationMs: now() - startedAt,
        },
        held
          ? 'signing key fetch failed; keeping the last good key'
          : 'signing key fetch failed; no key held',
      );
    }
    return held;
  }

  function after(delayMs: number, task: () => Promise<void>): void {
    if (stopper.signal.aborted) return;
    // The schedule drops what the task returns: a failure is logged here, never left unhandled.
    const cancel = schedule(async () => {
      cancels.delete(cancel);
      await task().catch((error: unknown) => {
        logger.error({ url, err: error }, 'signing key: scheduled task failed');
      });
    }, delayMs);
    cancels.add(cancel);
  }

  /** No delivery comes to a not-ready instance, so without a key we keep trying on our own. */
  function retryWhileKeyless(attemptNumber: number): void {
    if (held !== undefined) return;
    const delay = retryBackoffMs(
      attemptNumber,
      options.retryBackoffFirstMs ?? 500,
      options.retryBackoffMaxMs ?? signingKeySettings.defaults.retryBackoffMaxMs,
      options.random ?? Math.random,
    );
    after(delay, async () => {
      await fetchOnce('retry while no key held');
      retryWhileKeyless(attemptNumber + 1);
    });
  }

  /** A rotation is then noticed even before the first delivery signed with the new key. */
  function refreshPeriodically(intervalMs: number): void {
    after(intervalMs, async () => {
      await fetchOnce('scheduled refresh');
      refreshPeriodically(intervalMs);
    });
  }

  async function ensure(): Promise<SigningKey | undefined> {
    if (held) return held;
    if (inFlight) return inFlight;
    if (lastAttemptAt !== undefined && now() - lastAttemptAt < options.retryIntervalMs) {
      return undefined;
    }
    return fetchOnce('no key held');
  }

  async function refreshAfterFailure(failed: SigningKey): Promise<RefreshResult> {
    const seenAt = now();
    const rotated = (): SigningKey | undefined =>
      held !== undefined && held.fingerprint !== failed.fingerprint ? held : undefined;
    if (rotated()) return rotated();

    // Only a fetch begun after the failure was seen speaks for the key the sender signed with.
    const confirmed = () => confirmedAt !== undefined && confirmedAt >= seenAt;
    const windowOpen = () =>
      lastAttemptAt === undefined || now() - lastAttemptAt >= options.refreshCooldownMs;

    // A fetch under way may bring the new key: wait for it rather than refuse at once. If it
    // began before this failure and did not settle it, fetch again when the throttle allows.
    if (inFlight) await inFlight;
    if (!rotated() && !confirmed() && windowOpen()) await fetchOnce('signature did not verify');
    if (rotated()) return rotated();
    return confirmed() ? undefined : 'unconfirmed';
  }

  return {
    current: () => held,
    ensure,
    refreshAfterFailure,
    start: async () => {
      await fetchOnce('start-up');
      if (started) return;
      started = true;
      if (options.refreshIntervalMs) refreshPeriodically(options.refreshIntervalMs);
      retryWhileKeyless(0);
    },
    stop: () => {
      stopper.abort();
      cancels.forEach((cancel) => cancel());
      cancels.clear();
    },
  };
}

function checkBounds(options: FetchedKeySourceOptions): void {
  if (options.refreshCooldownMs > MAX_REFRESH_COOLDOWN_MS) {
    throw new RangeError(
      `refreshCooldownMs is at most ${MAX_REFRESH_COOLDOWN_MS}: the platform retries after 30 s`,
    );
  }
  if (options.fetchTimeoutMs > MAX_FETCH_TIMEOUT_MS) {
    throw new RangeError(`fetchTimeoutMs is at most ${MAX_FETCH_TIMEOUT_MS}`);
  }
}
