import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('when the environment is empty, then the defaults apply and the production key URL is derived', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
      providerEnv: 'production',
      bodyLimitBytes: 4 * 1024 * 1024,
      webhookSecrets: [],
      trustProxy: false,
      signingKey: {
        kind: 'fetched',
        url: 'https://api.mpay.com.au/public/v1/certificate/public-key',
        allowHttp: false,
      },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('when PROVIDER_ENV is sandbox, then the sandbox key URL is used', () => {
    const config = loadConfig({ PROVIDER_ENV: 'sandbox' });
    expect(config.signingKey).toMatchObject({
      url: 'https://api.m-pay.com.au/public/v1/certificate/public-key',
    });
  });

  it('when SIGNING_KEY is set, then it is used instead of any URL', () => {
    const config = loadConfig({ SIGNING_KEY: '3082010A...', SIGNING_KEY_URL: 'https://x.test/k' });
    expect(config.signingKey).toEqual({ kind: 'configured', text: '3082010A...' });
  });

  it('when several values are bad, then every one is reported at once, by name', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      PROVIDER_ENV: 'staging',
      BODY_LIMIT_BYTES: '-1',
      DATABASE_URL: 'mysql://nope',
      LOG_LEVEL: 'loud',
    });
    const named = problems.map((problem) => problem.split(':')[0]);
    expect(named.sort()).toEqual([
      'BODY_LIMIT_BYTES',
      'DATABASE_URL',
      'LOG_LEVEL',
      'PORT',
      'PROVIDER_ENV',
    ]);
  });

  it('when the key URL is plain http, then start-up is refused unless explicitly allowed', () => {
    expect(problemsOf({ SIGNING_KEY_URL: 'http://127.0.0.1:9/key' })[0]).toMatch(
      /^SIGNING_KEY_URL: must be https/,
    );
    const allowed = loadConfig({
      SIGNING_KEY_URL: 'http://127.0.0.1:9/key',
      SIGNING_KEY_ALLOW_HTTP: 'true',
    });
    expect(allowed.signingKey).toMatchObject({ url: 'http://127.0.0.1:9/key', allowHttp: true });
  });

  it('when WEBHOOK_SECRETS lists several, then each is trimmed and blanks are dropped', () => {
    const config = loadConfig({ WEBHOOK_SECRETS: 'Basic abc, Basic def ,,' });
    expect(config.webhookSecrets).toEqual(['Basic abc', 'Basic def']);
  });

  it('when a variable is set but blank, then it counts as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '  ', SIGNING_KEY: '' })).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
      signingKey: { kind: 'fetched' },
    });
  });

  it.each([
    ['true', true],
    ['2', 2],
    ['loopback, 10.0.0.0/8', 'loopback, 10.0.0.0/8'],
  ])('when TRUST_PROXY is %s, then Express gets %s', (raw, expected) => {
    expect(loadConfig({ TRUST_PROXY: raw }).trustProxy).toEqual(expected);
  });

  it('when nothing is set, then the timeout and budget defaults are consistent with each other', () => {
    const config = loadConfig({});
    expect(config.server.headersTimeoutMs).toBeLessThanOrEqual(config.server.requestTimeoutMs);
    expect(config.bodyMemoryBudgetBytes).toBeGreaterThanOrEqual(config.bodyLimitBytes);
    expect(config).toMatchObject({
      bodyMemoryBudgetBytes: 64 * 1024 * 1024,
      maxUnverifiedBodies: 16,
      server: { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 },
    });
  });

  it('when HEADERS_TIMEOUT_MS is larger than REQUEST_TIMEOUT_MS, then start-up is refused naming it', () => {
    // Node would silently swap the two, letting a slow body run for the larger one.
    const problems = problemsOf({ HEADERS_TIMEOUT_MS: '66000', REQUEST_TIMEOUT_MS: '30000' });
    expect(problems).toEqual([expect.stringMatching(/^HEADERS_TIMEOUT_MS: .*REQUEST_TIMEOUT_MS/)]);
    expect(problemsOf({ HEADERS_TIMEOUT_MS: '40000' })).toHaveLength(1);
  });

  it('when BODY_MEMORY_BUDGET_BYTES is below BODY_LIMIT_BYTES, then start-up is refused naming it', () => {
    const problems = problemsOf({
      BODY_MEMORY_BUDGET_BYTES: '1048576',
      BODY_LIMIT_BYTES: '2097152',
    });
    expect(problems).toEqual([
      expect.stringMatching(/^BODY_MEMORY_BUDGET_BYTES: .*BODY_LIMIT_BYTES/),
    ]);
  });

  it('when MAX_UNVERIFIED_BODIES is 0, then start-up is refused naming it', () => {
    expect(problemsOf({ MAX_UNVERIFIED_BODIES: '0' })[0]).toMatch(/^MAX_UNVERIFIED_BODIES: /);
  });
});
