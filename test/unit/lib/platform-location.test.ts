import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/cli/config.ts';
import { problemsOf, SECRET } from '../../support/config-problems.ts';

/**
 * Where the platform is (src/lib/platform-location.ts): PROVIDER_ENV and the URLs it derives,
 * and what the provider client and the signing key take from them, as the composed
 * configuration loads them.
 */

describe('loadConfig', () => {
  it('when PROVIDER_ENV is sandbox, then the sandbox key URL is used', () => {
    const config = loadConfig({ ...SECRET, PROVIDER_ENV: 'sandbox' });
    expect(config.signingKey).toMatchObject({
      url: 'https://api.m-pay.com.au/public/v1/certificate/public-key',
    });
  });

  it('when PROVIDER_ENV is sandbox, then both platform hosts derive from it, and recovery is off without an API key', () => {
    const config = loadConfig({ ...SECRET, PROVIDER_ENV: 'sandbox' });
    expect(config.provider).toMatchObject({
      baseUrl: 'https://api.m-pay.com.au',
      authUrl: 'https://sand-api.monoova.com',
      apiKey: undefined,
    });
    expect(config.recoveryIntervalMs).toBe(0);
    const withKey = loadConfig({
      ...SECRET,
      PROVIDER_API_KEY: 'k',
      PROVIDER_MACCOUNT: '6279059700000001',
    });
    expect(withKey.provider.authUrl).toBe('https://api.monoova.com');
    expect(withKey.recoveryIntervalMs).toBe(300_000);
  });

  it('when PROVIDER_BASE_URL is set, then the signing key URL derives from it too', () => {
    const config = loadConfig({
      ...SECRET,
      PROVIDER_BASE_URL: 'https://platform.test/',
      PROVIDER_AUTH_URL: 'https://auth.platform.test',
    });
    expect(config.provider.baseUrl).toBe('https://platform.test');
    expect(config.signingKey).toMatchObject({
      url: 'https://platform.test/public/v1/certificate/public-key',
    });
  });

  it('when a provider URL is plain http to another machine or carries credentials, then it is refused', () => {
    expect(problemsOf({ ...SECRET, PROVIDER_BASE_URL: 'http://platform.test' })[0]).toMatch(
      /^PROVIDER_BASE_URL/,
    );
    expect(problemsOf({ ...SECRET, PROVIDER_AUTH_URL: 'https://u:p@platform.test' })[0]).toMatch(
      /^PROVIDER_AUTH_URL/,
    );
    const local = { PROVIDER_BASE_URL: 'http://127.0.0.1:8787', SIGNING_KEY_ALLOW_HTTP: 'true' };
    expect(
      loadConfig({ ...SECRET, ...local, PROVIDER_AUTH_URL: 'http://127.0.0.1:8787' }).provider
        .authUrl,
    ).toBe('http://127.0.0.1:8787');
  });

  it('when one provider URL is local and the other would be production, then start-up is refused naming both (credentials never go to a host not chosen)', () => {
    const mixed = problemsOf({
      ...SECRET,
      PROVIDER_BASE_URL: 'http://127.0.0.1:8787',
      SIGNING_KEY_ALLOW_HTTP: 'true',
    });
    expect(mixed).toEqual([
      expect.stringMatching(
        /^PROVIDER_BASE_URL, PROVIDER_AUTH_URL: must point at one platform: PROVIDER_BASE_URL \(set: local\) but PROVIDER_AUTH_URL \(from PROVIDER_ENV=production: production\)/,
      ),
    ]);
    // The platform's sandbox for one, production for the other: refused too.
    expect(
      problemsOf({
        ...SECRET,
        PROVIDER_ENV: 'sandbox',
        PROVIDER_AUTH_URL: 'https://api.monoova.com',
      }),
    ).toHaveLength(1);
  });

  it("when SIGNING_KEY_URL is on the other platform's host than PROVIDER_ENV chose, then start-up is refused naming both (a production receiver never trusts sandbox-signed deliveries)", () => {
    const sandboxKey = 'https://api.m-pay.com.au/public/v1/certificate/public-key';
    const productionKey = 'https://api.mpay.com.au/public/v1/certificate/public-key';
    const refused =
      /^PROVIDER_ENV, SIGNING_KEY_URL: must point at one platform: PROVIDER_ENV=(production|sandbox) but SIGNING_KEY_URL is the (sandbox|production) platform's host/;
    expect(
      problemsOf({ ...SECRET, PROVIDER_ENV: 'production', SIGNING_KEY_URL: sandboxKey }),
    ).toEqual([expect.stringMatching(refused)]);
    expect(
      problemsOf({ ...SECRET, PROVIDER_ENV: 'sandbox', SIGNING_KEY_URL: productionKey }),
    ).toEqual([expect.stringMatching(refused)]);
    // The platform chosen by its base URL counts as chosen too.
    expect(
      problemsOf({
        ...SECRET,
        PROVIDER_BASE_URL: 'https://api.m-pay.com.au',
        PROVIDER_AUTH_URL: 'https://sand-api.monoova.com',
        SIGNING_KEY_URL: productionKey,
      }),
    ).toEqual([
      expect.stringMatching(/^PROVIDER_ENV, SIGNING_KEY_URL: .*PROVIDER_BASE_URL \(set: sandbox/),
    ]);
    // The same platform, a host of the operator's own, or PROVIDER_ENV left at its default: kept.
    for (const env of [
      { PROVIDER_ENV: 'sandbox', SIGNING_KEY_URL: sandboxKey },
      { PROVIDER_ENV: 'production', SIGNING_KEY_URL: productionKey },
      { PROVIDER_ENV: 'production', SIGNING_KEY_URL: 'https://keys.example.test/k' },
      { SIGNING_KEY_URL: sandboxKey },
    ]) {
      expect(loadConfig({ ...SECRET, ...env }).signingKey).toMatchObject({
        url: env.SIGNING_KEY_URL,
      });
    }
  });

  it("when PROVIDER_ENV is local, then both URLs and the key are this machine's sandbox, without another switch", () => {
    const config = loadConfig({ ...SECRET, PROVIDER_ENV: 'local' });
    expect(config.provider).toMatchObject({
      baseUrl: 'http://127.0.0.1:8787',
      authUrl: 'http://127.0.0.1:8787',
    });
    expect(config.signingKey).toMatchObject({
      url: 'http://127.0.0.1:8787/public/v1/certificate/public-key',
      allowHttp: true,
    });
  });
});
