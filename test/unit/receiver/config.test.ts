import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/cli/config.ts';
import { problemsOf, SECRET } from '../../support/config-problems.ts';

/** The receiver's settings (src/receiver/config.ts), as the composed configuration loads them. */

describe('loadConfig', () => {
  it('when SIGNING_KEY is set, then it is used instead of any URL', () => {
    const config = loadConfig({
      ...SECRET,
      SIGNING_KEY: '3082010A...',
      SIGNING_KEY_URL: 'https://x.test/k',
    });
    expect(config.signingKey).toEqual({ kind: 'configured', text: '3082010A...' });
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
});
