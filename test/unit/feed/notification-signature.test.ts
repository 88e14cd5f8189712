import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signPosition, verifiedPosition } from '../../../src/feed/notification-signature.ts';

describe('feed_positions payload signature', () => {
  const key = randomBytes(32);

  it('when the payload was signed with the key, then its position is read back', () => {
    expect(verifiedPosition(key, signPosition(key, '42'))).toBe(42n);
    expect(verifiedPosition(key, signPosition(key, '9223372036854775807'))).toBe(
      9223372036854775807n,
    );
  });

  it('when the payload is bare, forged, altered, signed with another key or malformed, then it is not trusted', () => {
    const signed = signPosition(key, '42');
    const [, mac] = signed.split('.');
    for (const payload of [
      '42',
      '',
      undefined,
      `43.${mac}`,
      `42.${'0'.repeat(64)}`,
      signPosition(randomBytes(32), '42'),
      `${signed}.1`,
      `042.${mac}`,
      `42.${mac?.toUpperCase()}`,
      `42.${mac?.slice(2)}`,
      `-1.${mac}`,
    ]) {
      expect(verifiedPosition(key, payload), String(payload)).toBeUndefined();
    }
  });
});
