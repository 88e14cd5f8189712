import type { KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import { DEFAULT_MAX_KEY_BYTES, checkKeyUrl, describeError, fetchSigningKey } from './key-fetch.ts';
import { keyFingerprint } from './public-key.ts';

/**
 * Where the platform's public key comes from: pinned in configuration, or fetched from the
 * platform's key endpoint and cached in memory. The platform rotates its key about once a year,
 * so a fetched source refetches when a signature fails with a key that is no longer fresh.
 */

export interface SigningKey {
  key: KeyObject;
  fingerprint: string;
  /** Epoch ms when this key (by fingerprint) was first obtained. */
  obtainedAt: number;
  origin: 'configured' | 'fetched';
}

export interface SigningKeySource {
  /** The key in hand, if any. */
  current(): SigningKey | undefined;
  /** The key in hand or, when there is none, one fetch attempt (spaced by the retry interval). */
  ensure(): Promise<SigningKey | undefined>;
  /** A signature failed with `failed`: maybe refetch; resolves to a different key, if one came. */
  refreshAfterFailure(failed: SigningKey): Promise<SigningKey | undefined>;
  /** The start-up fetch. Never rejects: the service starts and answers 503 until a key comes. */
  start(): Promise<void>;
  /** Abandons any fetch in flight. */
  stop(): void;
}

export interface FetchedKeySourceOptions {
  url: string;
  fetchTimeoutMs: number;
  /** A key younger than this is not refetched on a failed signature, nor is a recent attempt repeated. */
  refreshCooldownMs: number;
  /** While no key is held at all, the least time between fetch attempts. */
  retryIntervalMs: number;
  /** Plain http is for tests against a local server only. */
  allowHttp: boolean;
  now: () => number;
  logger: Logger;
  fetchImpl?: typeof fetch;
  maxBytes?: number;
  /** Refetch this often in the background (0 or absent: only on demand). */
  refreshIntervalMs?: number;
  /** Told about every fetch, for metrics. */
  onFetch?: (result: KeyFetchResult) => void;
}

/** `fetched`: same key as held; `changed`: a different key replaced it (or the first one came). */
export type KeyFetchResult = 'fetched' | 'changed' | 'failed';

export function createConfiguredKeySource(key: KeyObject, now: () => number): SigningKeySource {
  const held: SigningKey = {
    key,
    fingerprint: keyFingerprint(key),
    obtainedAt: now(),
    origin: 'configured',
  };
  return {
    current: () => held,
    ensure: () => Promise.resolve(held),
    // A pinned key is the operator's decision; nothing to refresh it from.
    refreshAfterFailure: () => Promise.resolve(undefined),
    start: () => Promise.resolve(),
    stop: () => {},
  };
}

export function createFetchedKeySource(options: FetchedKeySourceOptions): SigningKeySource {
  const url = checkKeyUrl(options.url, options.allowHttp);
  const { now, logger } = options;
  const fetchImpl = options.fetchImpl ?? fetch;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_KEY_BYTES;
  const stopper = new AbortController();

  let held: SigningKey | undefined;
  let inFlight: Promise<SigningKey | undefined> | undefined;
  let lastAttemptAt: number | undefined;
  let refreshTimer: NodeJS.Timeout | undefined;

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
        maxBytes,
        fetchImpl,
        signal: stopper.signal,
      });
      const fingerprint = keyFingerprint(key);
      const changed = held !== undefined && held.fingerprint !== fingerprint;
      options.onFetch?.(held?.fingerprint === fingerprint ? 'fetched' : 'changed');
      if (held?.fingerprint !== fingerprint) {
        held = { key, fingerprint, obtainedAt: now(), origin: 'fetched' };
      }
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

  async function ensure(): Promise<SigningKey | undefined> {
    if (held) return held;
    if (inFlight) return inFlight;
    if (lastAttemptAt !== undefined && now() - lastAttemptAt < options.retryIntervalMs) {
      return undefined;
    }
    return fetchOnce('no key held');
  }

  async function refreshAfterFailure(failed: SigningKey): Promise<SigningKey | undefined> {
    const differentFromFailed = (key: SigningKey | undefined): SigningKey | undefined =>
      key !== undefined && key.fingerprint !== failed.fingerprint ? key : undefined;

    // Another request may already have rotated the key, or be fetching right now.
    if (differentFromFailed(held)) return held;
    if (inFlight) return differentFromFailed(await inFlight);

    const at = now();
    const keyIsFresh = at - failed.obtainedAt < options.refreshCooldownMs;
    const triedRecently =
      lastAttemptAt !== undefined && at - lastAttemptAt < options.refreshCooldownMs;
    if (keyIsFresh || triedRecently) return undefined;
    return differentFromFailed(await fetchOnce('signature did not verify'));
  }

  return {
    current: () => held,
    ensure,
    refreshAfterFailure,
    start: async () => {
      await fetchOnce('start-up');
      // A rotation is then noticed even before the first delivery signed with the new key.
      if (options.refreshIntervalMs && !refreshTimer && !stopper.signal.aborted) {
        refreshTimer = setInterval(
          () => void fetchOnce('scheduled refresh'),
          options.refreshIntervalMs,
        );
        refreshTimer.unref();
      }
    },
    stop: () => {
      clearInterval(refreshTimer);
      stopper.abort();
    },
  };
}
