import { tokenExpiresAt } from './jwt-expiry.ts';
import { ProviderError } from './protocol/provider-error.ts';

/**
 * The bearer token, cached until shortly before it expires. One sign-in in flight at a time:
 * callers arriving meanwhile share it. A token the platform answers 401 to is forgotten
 * (`reject`) so the next caller signs in again: the client does that once per call.
 *
 * Sign-in failures are handled with the account lock-out in mind (5 failed sign-ins lock the
 * account for an hour; 10 failed token requests block the key until it is rolled). A refused
 * sign-in (4xx, or a non-`Ok` status) is never tried again by this process: every later call
 * fails at once with `sign-in-refused` until the credentials are fixed and the process restarts.
 * Other failures (timeout, 5xx) are not retried here either; the next call may try once more.
 */
export interface TokenCacheOptions {
  signIn: () => Promise<string>;
  now: () => number;
  /** Renew this long before the token expires (at most half its lifetime). */
  renewBeforeMs?: number;
  /** Use a token at least this long whatever its `exp` says, so a skewed clock cannot turn every call into a sign-in. */
  minLifetimeMs?: number;
}

export interface TokenCache {
  token(): Promise<string>;
  /** The platform refused this token: drop it (unless a newer one already replaced it). */
  reject(token: string): void;
  /** Epoch ms the cached token expires, for status output (never the token itself). */
  expiresAt(): number | undefined;
  /** The token held now, without signing in (to tell a cached token from a fresh one). */
  peek(): string | undefined;
}

interface Held {
  token: string;
  renewAt: number;
  expiresAt: number;
}

export function createTokenCache(options: TokenCacheOptions): TokenCache {
  const renewBeforeMs = options.renewBeforeMs ?? 5 * 60_000;
  const minLifetimeMs = options.minLifetimeMs ?? 60_000;
  let held: Held | undefined;
  let inFlight: Promise<string> | undefined;
  let refused: ProviderError | undefined;

  async function signIn(): Promise<string> {
    try {
      const token = await options.signIn();
      const issuedAt = options.now();
      const expiresAt = Math.max(tokenExpiresAt(token, issuedAt), issuedAt + minLifetimeMs);
      const lead = Math.min(renewBeforeMs, (expiresAt - issuedAt) / 2);
      held = { token, renewAt: expiresAt - lead, expiresAt };
      return token;
    } catch (error) {
      if (error instanceof ProviderError && isRefusal(error)) refused = error;
      throw error;
    }
  }

  return {
    async token() {
      if (refused) throw refusedAgain(refused);
      const now = options.now();
      if (held && now < held.renewAt) return held.token;
      const current = held;
      inFlight ??= signIn().finally(() => {
        inFlight = undefined;
      });
      try {
        return await inFlight;
      } catch (error) {
        // Renewal failed early: the old token is still good until it expires.
        if (current && options.now() < current.expiresAt && !refused) return current.token;
        throw error;
      }
    },
    reject(token) {
      if (held?.token === token) held = undefined;
    },
    expiresAt: () => held?.expiresAt,
    peek: () => held?.token,
  };
}

function isRefusal(error: ProviderError): boolean {
  if (error.kind === 'status') return true;
  const status = error.httpStatus ?? 0;
  return error.kind === 'http' && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

function refusedAgain(first: ProviderError): ProviderError {
  return new ProviderError({
    endpoint: first.endpoint,
    kind: 'sign-in-refused',
    ...(first.httpStatus !== undefined && { httpStatus: first.httpStatus }),
    ...(first.status !== undefined && { status: first.status }),
    statusDescription:
      'an earlier sign-in was refused; not trying again (the platform locks the account after repeated failures): fix PROVIDER_MACCOUNT / PROVIDER_API_KEY and restart',
  });
}
