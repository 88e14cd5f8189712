import { describe, expect, it } from 'vitest';
import { isoInstant } from '../../../src/feed/render-events.ts';

describe('instants in the feed', () => {
  it('when Postgres prints an instant in another session zone, then the feed gives it in UTC', () => {
    expect(isoInstant('2026-11-22 14:35:11.329+11')).toBe('2026-11-22T03:35:11.329Z');
    expect(isoInstant('2026-11-22 03:35:11+05:30')).toBe('2026-11-21T22:05:11.000Z');
  });
});
