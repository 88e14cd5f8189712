import { describe, expect, it } from 'vitest';
import {
  decideResend,
  type LastResend,
} from '../../../../src/platform/recovery/resend-decision.ts';

const policy = { maxAttempts: 3, spacingMs: 10 * 60_000 };
const at = new Date('2026-11-28T03:00:00Z');
const minutesAgo = (m: number) => new Date(at.getTime() - m * 60_000);
const last = (over: Partial<LastResend> = {}): LastResend => ({
  attempts: 1,
  lastAttemptAt: minutesAgo(1),
  lastOutcome: 'resent',
  lastHttpStatus: 200,
  reportRetryCount: 1,
  reportLastRetry: '11/28/2026 1:59:00 PM',
  ...over,
});
const unchanged = { retryCount: 1, lastRetryDateTime: '11/28/2026 1:59:00 PM' };

describe('what recovery does about one missing notification', () => {
  it('when it was never resent, then it is resent', () => {
    expect(decideResend(undefined, unchanged, policy, at)).toEqual({
      action: 'resend',
      why: 'first',
    });
  });

  it('when the last resend was accepted and the report shows no delivery since, then it waits out the spacing', () => {
    expect(decideResend(last(), unchanged, policy, at)).toEqual({
      action: 'wait',
      why: 'spacing',
    });
    expect(decideResend(last({ lastAttemptAt: minutesAgo(11) }), unchanged, policy, at)).toEqual({
      action: 'resend',
      why: 'spaced',
    });
  });

  it.each([
    [
      'its retry count moved',
      last(),
      { retryCount: 2, lastRetryDateTime: unchanged.lastRetryDateTime },
    ],
    [
      'its last retry time moved',
      last(),
      { retryCount: 1, lastRetryDateTime: '11/28/2026 2:00:01 PM' },
    ],
    [
      'its first retry time appeared',
      last({ reportRetryCount: 0, reportLastRetry: null }),
      { retryCount: undefined, lastRetryDateTime: '11/28/2026 2:00:01 PM' },
    ],
  ])(
    'when the report shows a delivery after the accepted resend (%s) and it is still missing, then it is resent at once',
    (_, before, now) => {
      expect(decideResend(before, now, policy, at)).toEqual({
        action: 'resend',
        why: 'delivery-failed',
      });
    },
  );

  it.each([[503], [500], [null]])(
    'when the last resend call failed with %s, then it is resent at once (within the limit)',
    (status) => {
      const failed = last({ lastOutcome: 'failed', lastHttpStatus: status });
      expect(decideResend(failed, unchanged, policy, at)).toEqual({
        action: 'resend',
        why: 'call-failed',
      });
      expect(decideResend({ ...failed, attempts: 3 }, unchanged, policy, at)).toEqual({
        action: 'give-up',
      });
    },
  );

  it('when the last resend call was refused with a 4xx, then it waits out the spacing', () => {
    const refused = last({ lastOutcome: 'failed', lastHttpStatus: 400 });
    expect(decideResend(refused, unchanged, policy, at)).toEqual({
      action: 'wait',
      why: 'spacing',
    });
  });

  it('when the resend was recorded before the report was (an older version), then only the spacing counts', () => {
    const old = last({ reportRetryCount: null, reportLastRetry: null });
    expect(decideResend(old, { retryCount: 5, lastRetryDateTime: 'y' }, policy, at)).toEqual({
      action: 'wait',
      why: 'spacing',
    });
  });

  it('when the limit is reached, then it gives up whatever the report says', () => {
    expect(
      decideResend(last({ attempts: 3 }), { retryCount: 9, lastRetryDateTime: 'z' }, policy, at),
    ).toEqual({ action: 'give-up' });
  });
});
