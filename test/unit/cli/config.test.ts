import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/cli/config.ts';
import { ConfigError } from '../../../src/lib/config/config-error.ts';
import { problemsOf, SECRET } from '../../support/config-problems.ts';

/**
 * The composed configuration (src/cli/config.ts): every module's settings loaded in one pass,
 * every problem reported at once, secrets from files. Each module's own rules are tested beside
 * it (test/unit/receiver/config.test.ts, test/unit/lib/platform-location.test.ts, the feed's
 * and retention's).
 */

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

  it('when a variable is set but blank, then it counts as unset', () => {
    expect(loadConfig({ ...SECRET, PORT: '', DATABASE_URL: '  ', SIGNING_KEY: '' })).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
      signingKey: { kind: 'fetched' },
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
