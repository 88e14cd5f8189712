import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/cli/config.ts';
import { ConfigError } from '../../../src/lib/config/config-error.ts';

const secret = `whsec_${randomBytes(32).toString('base64')}`;

/** What every configuration needs besides the feed's own settings (merged from main). */
const REQUIRED = { WEBHOOK_SECRETS: 'feed-config-test-secret' };

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig({ ...REQUIRED, ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('feed configuration', () => {
  it('when nothing is set, then positions run but neither the pull endpoint nor the relay does, and a pull listener would be loopback only', () => {
    expect(loadConfig(REQUIRED).feed).toMatchObject({
      token: undefined,
      relay: undefined,
      host: '127.0.0.1',
      port: 3002,
    });
  });

  it('when FEED_HTTP_URL and a whsec_ secret are set, then the relay is configured with the key bytes', () => {
    const feed = loadConfig({
      ...REQUIRED,
      FEED_HTTP_URL: 'https://consumer.example/hooks',
      FEED_HTTP_SECRET: secret,
      FEED_HTTP_CONCURRENCY: '3',
    }).feed;
    expect(feed.relay).toMatchObject({ url: 'https://consumer.example/hooks', concurrency: 3 });
    expect(feed.relay?.secrets).toEqual([Buffer.from(secret.slice(6), 'base64')]);
  });

  it('when FEED_HTTP_URL is set without a secret, or with a malformed one, then start-up is refused naming FEED_HTTP_SECRET', () => {
    expect(problemsOf({ FEED_HTTP_URL: 'https://c.example/' })).toEqual([
      'FEED_HTTP_SECRET: required with FEED_HTTP_URL',
    ]);
    expect(
      problemsOf({ FEED_HTTP_URL: 'https://c.example/', FEED_HTTP_SECRET: 'hunter2' })[0],
    ).toContain('FEED_HTTP_SECRET: must start with whsec_');
  });

  it('when FEED_HTTP_URL carries a user and password, then start-up is refused without echoing them', () => {
    const problems = problemsOf({
      FEED_HTTP_URL: 'https://merchant:hunter2-pass@c.example/hooks',
      FEED_HTTP_SECRET: secret,
    });
    expect(problems).toEqual([expect.stringContaining('FEED_HTTP_URL: must not carry a user')]);
    expect(problems.join('\n')).not.toContain('hunter2-pass');
  });

  it('when FEED_HTTP_URL is plain http to another host, then start-up is refused unless FEED_HTTP_ALLOW_PLAIN_HTTP says the network is private', () => {
    const plain = { FEED_HTTP_URL: 'http://ledger.internal/hooks', FEED_HTTP_SECRET: secret };
    expect(problemsOf(plain)).toEqual([expect.stringContaining('FEED_HTTP_URL: plain http only')]);
    expect(
      loadConfig({ ...REQUIRED, ...plain, FEED_HTTP_ALLOW_PLAIN_HTTP: 'true' }).feed.relay,
    ).toMatchObject({ url: 'http://ledger.internal/hooks' });
    for (const host of ['127.0.0.1:9000', 'localhost', '[::1]:8080']) {
      const local = loadConfig({
        ...REQUIRED,
        FEED_HTTP_URL: `http://${host}/h`,
        FEED_HTTP_SECRET: secret,
      });
      expect(local.feed.relay?.url).toContain(host);
    }
  });

  it('when FEED_TOKEN is short, then start-up is refused', () => {
    expect(problemsOf({ FEED_TOKEN: 'short' })[0]).toContain('FEED_TOKEN');
  });
});
