import { describe, expect, it } from 'vitest';
import { FEED_EVENT_TYPES } from '../../../src/receiver/contract.ts';
import { parseTypeFilter, selectsType } from '../../../src/feed/endpoints/type-filter.ts';

describe('an endpoint type filter', () => {
  it('selects exact types, prefixes and everything', () => {
    expect(selectsType(['payment.received'], 'payment.received')).toBe(true);
    expect(selectsType(['payment.received'], 'payto_payment.received')).toBe(false);
    expect(selectsType(['quarantine.*'], 'quarantine.opened')).toBe(true);
    expect(selectsType(['quarantine.*'], 'quarantine.resolved')).toBe(true);
    expect(selectsType(['quarantine.*'], 'payment.received')).toBe(false);
    expect(selectsType(['*'], 'event.unmodelled')).toBe(true);
  });

  it('reads a comma-separated list, once each', () => {
    expect(parseTypeFilter(' payment.* , quarantine.opened,payment.*', FEED_EVENT_TYPES)).toEqual({
      types: ['payment.*', 'quarantine.opened'],
    });
  });

  it('refuses an entry that selects nothing the feed knows, or is malformed', () => {
    const parsed = parseTypeFilter('payments.*,PAYMENT.received,,x.*.y', FEED_EVENT_TYPES);
    expect(parsed).toEqual({
      problems: [
        expect.stringContaining('"payments.*" selects no event type'),
        expect.stringContaining('"PAYMENT.received" is not an event type'),
        expect.stringContaining('"x.*.y" is not an event type'),
      ],
    });
    expect(parseTypeFilter(' , ', FEED_EVENT_TYPES)).toEqual({
      problems: ['name at least one event type, a prefix.* or *'],
    });
  });

  it('knows every type the outbox writes', () => {
    expect(FEED_EVENT_TYPES).toEqual(
      expect.arrayContaining([
        'payment.received',
        'payto_payment.received',
        'credit_rejection.received',
        'direct_credit.received',
        'conflict.detected',
        'event.unmodelled',
        'quarantine.opened',
        'quarantine.resolved',
      ]),
    );
  });
});
