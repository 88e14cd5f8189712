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

  it('when PROVIDER_ENV is sandbox, then both platform hosts derive from it, and recovery is off without an API key', () => {
    const config = loadConfig({ PROVIDER_ENV: 'sandbox' });
    expect(config.provider).toMatchObject({
      baseUrl: 'https://api.m-pay.com.au',
      authUrl: 'https://sand-api.monoova.com',
      apiKey: undefined,
    });
    expect(config.recoveryIntervalMs).toBe(0);
    const withKey = loadConfig({ PROVIDER_API_KEY: 'k', PROVIDER_MACCOUNT: '6279059700000001' });
    expect(withKey.provider.authUrl).toBe('https://api.monoova.com');
    expect(withKey.recoveryIntervalMs).toBe(300_000);
  });

  it('when PROVIDER_BASE_URL is set, then the signing key URL derives from it too', () => {
    const config = loadConfig({ PROVIDER_BASE_URL: 'https://platform.test/' });
    expect(config.provider.baseUrl).toBe('https://platform.test');
    expect(config.signingKey).toMatchObject({
      url: 'https://platform.test/public/v1/certificate/public-key',
    });
  });

  it('when a provider URL is plain http to another machine or carries credentials, then it is refused', () => {
    expect(problemsOf({ PROVIDER_BASE_URL: 'http://platform.test' })[0]).toMatch(
      /^PROVIDER_BASE_URL/,
    );
    expect(problemsOf({ PROVIDER_AUTH_URL: 'https://u:p@platform.test' })[0]).toMatch(
      /^PROVIDER_AUTH_URL/,
    );
    expect(loadConfig({ PROVIDER_AUTH_URL: 'http://127.0.0.1:8787' }).provider.authUrl).toBe(
      'http://127.0.0.1:8787',
    );
  });
});
