import type { KeyObject } from 'node:crypto';
import { keyFingerprint } from './public-key.ts';

/**
 * Where the platform's public key comes from: pinned in configuration, or fetched from the
 * platform's key endpoint and cached in memory (fetched-key-source.ts). The platform rotates its
 * key about once a year, so a fetched source refetches when a signature fails.
 */

export interface SigningKey {
  key: KeyObject;
  fingerprint: string;
  /** Epoch ms when this key (by fingerprint) was first obtained. */
  obtainedAt: number;
  origin: 'configured' | 'fetched';
}

/**
 * What a failed signature learnt from the key source: a different key to try; `undefined` when
 * the platform's current key is the one that failed (the signature is wrong: 401); or
 * `'unconfirmed'` when that could not be checked just now (a fetch was made moments ago, or the
 * endpoint failed): the platform signed with a key we may not have yet, so the answer is 503
 * and its retry 30 s later is checked against a fresh key. A 401 is never retried.
 */
export type RefreshResult = SigningKey | undefined | 'unconfirmed';

export interface SigningKeySource {
  /** The key in hand, if any. */
  current(): SigningKey | undefined;
  /** The key in hand or, when there is none, one fetch attempt (spaced by the retry interval). */
  ensure(): Promise<SigningKey | undefined>;
  /** A signature failed with `failed`: maybe refetch (throttled, single flight). */
  refreshAfterFailure(failed: SigningKey): Promise<RefreshResult>;
  /** The start-up fetch. Never rejects: the service starts and answers 503 until a key comes. */
  start(): Promise<void>;
  /** Abandons any fetch in flight and any scheduled one. */
  stop(): void;
}

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
    // A pinned key is the operator's decision; nothing to refresh it from, so a failure is final.
    refreshAfterFailure: () => Promise.resolve(undefined),
    start: () => Promise.resolve(),
    stop: () => {},
  };
}
