import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../../../src/platform/client/protocol/provider-error.ts';
import { createTokenCache } from '../../../../src/platform/client/token-cache.ts';
import { fakeJwt } from '../../../support/scripted-server.ts';

const HOUR = 60 * 60 * 1000;

function harness(tokens: Array<string | ProviderError>) {
  let clock = Date.UTC(2026, 10, 22, 0, 0, 0);
  let signIns = 0;
  const cache = createTokenCache({
    now: () => clock,
    signIn: () => {
      const next = tokens[signIns];
      signIns += 1;
      if (next === undefined) return Promise.reject(new Error('no more tokens scripted'));
      if (next instanceof ProviderError) return Promise.reject(next);
      return Promise.resolve(next);
    },
  });
  return {
    cache,
    advance: (ms: number) => (clock += ms),
    get clock() {
      return clock;
    },
    get signIns() {
      return signIns;
    },
  };
}

const refusal = () =>
  new ProviderError({ endpoint: 'token', kind: 'http', httpStatus: 401, status: 'Unauthorized' });

describe('token cache', () => {
  it('when the token is not a JWT, then it is kept 60 minutes (renewed 5 minutes early)', async () => {
    const h = harness(['opaque-1', 'opaque-2']);
    expect(await h.cache.token()).toBe('opaque-1');
    expect(h.cache.expiresAt()).toBe(h.clock + HOUR);
    h.advance(54 * 60_000);
    expect(await h.cache.token()).toBe('opaque-1');
    h.advance(60_001);
    expect(await h.cache.token()).toBe('opaque-2');
    expect(h.signIns).toBe(2);
  });

  it('when the token is a JWT, then its exp decides the expiry (24 hours here)', async () => {
    const h0 = harness([]);
    const exp = Math.floor(h0.clock / 1000) + 24 * 3600;
    const h = harness([fakeJwt(exp), 'second']);
    await h.cache.token();
    expect(h.cache.expiresAt()).toBe(exp * 1000);
    h.advance(23 * HOUR);
    expect(await h.cache.token()).not.toBe('second');
    h.advance(HOUR - 4 * 60_000);
    expect(await h.cache.token()).toBe('second');
  });

  it('when a JWT says it has already expired (clock skew), then it is still used a minute rather than signing in on every call', async () => {
    const h0 = harness([]);
    const h = harness([fakeJwt(Math.floor(h0.clock / 1000) - 3600), 'second']);
    await h.cache.token();
    await h.cache.token();
    await h.cache.token();
    expect(h.signIns).toBe(1);
  });

  it('when many callers ask at once, then one sign-in serves them all', async () => {
    const h = harness(['shared']);
    const tokens = await Promise.all(Array.from({ length: 10 }, () => h.cache.token()));
    expect(new Set(tokens)).toEqual(new Set(['shared']));
    expect(h.signIns).toBe(1);
  });

  it('when a token is rejected, then the next caller signs in again, and a stale rejection does not drop the newer token', async () => {
    const h = harness(['first', 'second', 'third']);
    expect(await h.cache.token()).toBe('first');
    h.cache.reject('first');
    expect(await h.cache.token()).toBe('second');
    h.cache.reject('first');
    expect(await h.cache.token()).toBe('second');
    expect(h.signIns).toBe(2);
  });

  it('when the sign-in is refused, then no sign-in is ever attempted again by this cache', async () => {
    const h = harness([refusal(), 'never-used']);
    await expect(h.cache.token()).rejects.toMatchObject({ kind: 'http', httpStatus: 401 });
    for (let i = 0; i < 5; i += 1) {
      h.advance(HOUR);
      await expect(h.cache.token()).rejects.toMatchObject({ kind: 'sign-in-refused' });
    }
    expect(h.signIns).toBe(1);
  });

  it('when a sign-in times out, then it is not latched: a later call may try once more', async () => {
    const h = harness([new ProviderError({ endpoint: 'token', kind: 'timeout' }), 'later']);
    await expect(h.cache.token()).rejects.toMatchObject({ kind: 'timeout' });
    expect(await h.cache.token()).toBe('later');
  });

  it('when an early renewal fails, then the old token is used until it really expires', async () => {
    const h = harness(['old', new ProviderError({ endpoint: 'token', kind: 'network' })]);
    await h.cache.token();
    h.advance(HOUR - 60_000);
    expect(await h.cache.token()).toBe('old');
    expect(h.signIns).toBe(2);
  });
});
