import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/lib/config.ts';

/** The receiver refuses to start without being told about the shared secret. */
const SECRET = { WEBHOOK_SECRETS: 'Basic abc' };

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
  it('when only a secret is set, then the defaults apply and the production key URL is derived', () => {
    const config = loadConfig(SECRET);
    expect(config).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
      providerEnv: 'production',
      bodyLimitBytes: 4 * 1024 * 1024,
      webhookSecrets: ['Basic abc'],
      allowNoWebhookSecret: false,
      trustProxy: false,
      metricsPort: 9464,
      metricsHost: '127.0.0.1',
      logBufferBytes: 4 * 1024 * 1024,
      signingKey: {
        kind: 'fetched',
        url: 'https://api.mpay.com.au/public/v1/certificate/public-key',
        allowHttp: false,
      },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('when PROVIDER_ENV is sandbox, then the sandbox key URL is used', () => {
    const config = loadConfig({ ...SECRET, PROVIDER_ENV: 'sandbox' });
    expect(config.signingKey).toMatchObject({
      url: 'https://api.m-pay.com.au/public/v1/certificate/public-key',
    });
  });

  it('when SIGNING_KEY is set, then it is used instead of any URL', () => {
    const config = loadConfig({
      ...SECRET,
      SIGNING_KEY: '3082010A...',
      SIGNING_KEY_URL: 'https://x.test/k',
    });
    expect(config.signingKey).toEqual({ kind: 'configured', text: '3082010A...' });
  });

  it('when several values are bad, then every one is reported at once, by name', () => {
    const problems = problemsOf({
      ...SECRET,
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
    expect(problemsOf({ ...SECRET, SIGNING_KEY_URL: 'http://127.0.0.1:9/key' })[0]).toMatch(
      /^SIGNING_KEY_URL: must be https/,
    );
    const allowed = loadConfig({
      ...SECRET,
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
    expect(loadConfig({ ...SECRET, PORT: '', DATABASE_URL: '  ', SIGNING_KEY: '' })).toMatchObject({
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
    expect(loadConfig({ ...SECRET, TRUST_PROXY: raw }).trustProxy).toEqual(expected);
  });

  it.each(['maybe', 'loopback, 10.0.0.0/33', 'yes'])(
    'when TRUST_PROXY is %s, then start-up is refused naming TRUST_PROXY',
    (raw) => {
      const problems = problemsOf({ ...SECRET, TRUST_PROXY: raw });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^TRUST_PROXY: .*expected true, false, a hop count/);
    },
  );

  it('when HOST or METRICS_HOST is not an address or host name, then start-up is refused naming it', () => {
    const problems = problemsOf({ ...SECRET, HOST: 'http://0.0.0.0', METRICS_HOST: '1.2.3.4:9' });
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
      'HOST',
      'METRICS_HOST',
    ]);
  });

  describe('the shared secret', () => {
    it.each([
      ['unset', {}, /^WEBHOOK_SECRETS: not set; set it to the subscription's security token/],
      ['blank', { WEBHOOK_SECRETS: '  ' }, /^WEBHOOK_SECRETS: blank; set it/],
      ['only commas', { WEBHOOK_SECRETS: ' , ,' }, /^WEBHOOK_SECRETS: blank; set it/],
      [
        'blank, flag false',
        { WEBHOOK_SECRETS: '', ALLOW_NO_WEBHOOK_SECRET: 'false' },
        /^WEBHOOK_SECRETS: blank/,
      ],
    ])(
      'when WEBHOOK_SECRETS is %s, then start-up is refused, saying what to set',
      (_, env, message) => {
        const problems = problemsOf(env);
        expect(problems).toHaveLength(1);
        expect(problems[0]).toMatch(message);
        expect(problems[0]).toContain('ALLOW_NO_WEBHOOK_SECRET=true');
      },
    );

    it('when ALLOW_NO_WEBHOOK_SECRET is true and no secret is set, then the check is off, explicitly', () => {
      for (const env of [{}, { WEBHOOK_SECRETS: ' ' }]) {
        const config = loadConfig({ ...env, ALLOW_NO_WEBHOOK_SECRET: 'true' });
        expect(config).toMatchObject({ webhookSecrets: [], allowNoWebhookSecret: true });
      }
    });

    it('when ALLOW_NO_WEBHOOK_SECRET is true and a secret is set too, then start-up is refused', () => {
      expect(problemsOf({ ...SECRET, ALLOW_NO_WEBHOOK_SECRET: 'true' })[0]).toMatch(
        /^ALLOW_NO_WEBHOOK_SECRET: is true but WEBHOOK_SECRETS is set/,
      );
    });

    it('when the secret is missing and other values are bad too, then every problem is reported at once', () => {
      const named = problemsOf({ PORT: 'eighty' }).map((problem) => problem.split(':')[0]);
      expect(named.sort()).toEqual(['PORT', 'WEBHOOK_SECRETS']);
    });

    it('when loaded for a tool that receives no deliveries, then no secret is needed', () => {
      expect(loadConfig({}, { receivesDeliveries: false }).webhookSecrets).toEqual([]);
    });
  });

  describe('metrics', () => {
    it('when METRICS_PORT is off, then no metrics listener is configured', () => {
      expect(loadConfig({ ...SECRET, METRICS_PORT: 'off' }).metricsPort).toBeUndefined();
    });

    it('when METRICS_PORT equals PORT, then start-up is refused: metrics never go on the public listener', () => {
      expect(problemsOf({ ...SECRET, PORT: '8080', METRICS_PORT: '8080' })[0]).toMatch(
        /^METRICS_PORT: must differ from PORT/,
      );
    });
  });

  it('when only a secret is set, then the timeout and budget defaults are consistent with each other', () => {
    const config = loadConfig(SECRET);
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
    const problems = problemsOf({
      ...SECRET,
      HEADERS_TIMEOUT_MS: '66000',
      REQUEST_TIMEOUT_MS: '30000',
    });
    expect(problems).toEqual([expect.stringMatching(/^HEADERS_TIMEOUT_MS: .*REQUEST_TIMEOUT_MS/)]);
    expect(problemsOf({ ...SECRET, HEADERS_TIMEOUT_MS: '40000' })).toHaveLength(1);
  });

  it('when BODY_MEMORY_BUDGET_BYTES is below BODY_LIMIT_BYTES, then start-up is refused naming it', () => {
    const problems = problemsOf({
      ...SECRET,
      BODY_MEMORY_BUDGET_BYTES: '1048576',
      BODY_LIMIT_BYTES: '2097152',
    });
    expect(problems).toEqual([
      expect.stringMatching(/^BODY_MEMORY_BUDGET_BYTES: .*BODY_LIMIT_BYTES/),
    ]);
  });

  it('when MAX_UNVERIFIED_BODIES is 0, then start-up is refused naming it', () => {
    expect(problemsOf({ ...SECRET, MAX_UNVERIFIED_BODIES: '0' })[0]).toMatch(
      /^MAX_UNVERIFIED_BODIES: /,
    );
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

describe('secrets from files (NAME_FILE, as container platforms mount them)', () => {
  const files: Record<string, string> = {
    '/run/secrets/webhook': 'Basic from-a-file\n',
    '/run/secrets/api-key': 'key-from-file',
  };
  const readFile = (path: string) => {
    const text = files[path];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return text;
  };

  it('when NAME_FILE names a file, then its content (less one trailing newline) is the value', () => {
    const config = loadConfig(
      {
        WEBHOOK_SECRETS_FILE: '/run/secrets/webhook',
        PROVIDER_API_KEY_FILE: '/run/secrets/api-key',
      },
      { readFile },
    );
    expect(config.webhookSecrets).toEqual(['Basic from-a-file']);
    expect(config.provider.apiKey).toBe('key-from-file');
  });

  it('when the file is missing, or the variable is set too, then start-up is refused naming NAME_FILE, never the content', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env, { readFile });
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
        throw error;
      }
      return [];
    };
    expect(problems({ ...SECRET, FEED_TOKEN_FILE: '/run/secrets/none' })).toEqual([
      'FEED_TOKEN_FILE: cannot read /run/secrets/none (ENOENT)',
    ]);
    const both = problems({
      WEBHOOK_SECRETS: 'Basic abc',
      WEBHOOK_SECRETS_FILE: '/run/secrets/webhook',
    });
    expect(both).toEqual([
      'WEBHOOK_SECRETS_FILE: WEBHOOK_SECRETS is set too; keep only one of them',
    ]);
    expect(both.join('')).not.toContain('from-a-file');
  });
});
