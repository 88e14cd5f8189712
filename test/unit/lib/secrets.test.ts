import type * as crypto from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createSecretMatcher } from '../../../src/lib/secrets.ts';

// Counts constant-time comparisons, to show every configured secret is compared (no early exit).
const counter = vi.hoisted(() => ({ timingSafeEqual: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof crypto>();
  return {
    ...actual,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      counter.timingSafeEqual += 1;
      return actual.timingSafeEqual(a, b);
    },
  };
});

const SECRET = 'Basic Rjc4QTJCNUQtMEU3MS00QjFBLUE5NzUtMkYzRUJDRDdFMTQy';

describe('createSecretMatcher', () => {
  beforeEach(() => {
    counter.timingSafeEqual = 0;
  });

  it('when the presented value equals the configured secret, then it matches', () => {
    expect(createSecretMatcher([SECRET])(SECRET)).toBe(true);
  });

  it('when the presented value differs in one character, then it does not match', () => {
    const wrong = `${SECRET.slice(0, -1)}3`;
    expect(wrong).toHaveLength(SECRET.length);
    expect(createSecretMatcher([SECRET])(wrong)).toBe(false);
  });

  it.each([
    ['a prefix of the secret', SECRET.slice(0, 10)],
    ['the secret with more appended', `${SECRET}AAAA`],
    ['a single character', 'B'],
  ])('when the presented value is %s, then it does not match (and nothing throws)', (_, value) => {
    expect(createSecretMatcher([SECRET])(value)).toBe(false);
  });

  it('when the presented value differs only in case or surrounding space, then it does not match', () => {
    const match = createSecretMatcher([SECRET]);
    expect(match(SECRET.replace('Basic', 'basic'))).toBe(false);
    expect(match(` ${SECRET}`)).toBe(false);
  });

  it('when several secrets are configured for rotation, then each of them matches', () => {
    const match = createSecretMatcher(['Basic old-secret', SECRET, 'Basic newer']);
    expect(match('Basic old-secret')).toBe(true);
    expect(match(SECRET)).toBe(true);
    expect(match('Basic newer')).toBe(true);
    expect(match('Basic other')).toBe(false);
  });

  it('when the first of several secrets matches, then every secret is still compared', () => {
    const match = createSecretMatcher([SECRET, 'Basic two', 'Basic three']);
    counter.timingSafeEqual = 0;
    expect(match(SECRET)).toBe(true);
    expect(counter.timingSafeEqual).toBe(3);
  });

  it('when the header is absent or empty, then it does not match', () => {
    const match = createSecretMatcher([SECRET]);
    expect(match(undefined)).toBe(false);
    expect(match('')).toBe(false);
  });

  it('when no secret is configured, then the check is skipped and anything passes', () => {
    const match = createSecretMatcher([]);
    expect(match(undefined)).toBe(true);
    expect(match('anything')).toBe(true);
  });

  it('when an empty secret is configured, then creating the matcher throws', () => {
    expect(() => createSecretMatcher([SECRET, ''])).toThrow(/empty webhook secret/);
  });

  it('when two matchers hold the same secret, then each still matches it (keys are per matcher)', () => {
    expect(createSecretMatcher([SECRET])(SECRET)).toBe(true);
    expect(createSecretMatcher([SECRET])(SECRET)).toBe(true);
  });
});
