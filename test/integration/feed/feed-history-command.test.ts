import { beforeEach, describe, expect, it } from 'vitest';
import { feedOutput } from '../../support/command-line.ts';
import { deliveryRows, numberedEvents, resetEndpoints } from '../../support/feed-endpoint-rows.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * `feed show <event>` and `feed attempts --endpoint …`: what became of an event at every
 * endpoint, and an endpoint's attempt log, newest first and bounded.
 */

const bed = useTestbed();
const feed = (words: string, ...more: string[]) =>
  feedOutput(bed.database.db, ...words.split(' '), ...more);
let ids: string[] = [];

async function attempt(
  endpoint: string,
  position: number,
  fields: {
    attempt: number;
    at: string;
    outcome: 'sent' | 'failed';
    status?: number;
    excerpt?: string;
    error?: string;
  },
) {
  await bed.database.query(
    `INSERT INTO feed_attempts (endpoint_id, event_id, position, attempt, started_at, duration_ms,
       outcome, status, response_excerpt, error, instance)
     SELECT ep.id, e.id, e.position, $3, $4, 42, $5, $6, $7, $8, 'instance-a'
     FROM feed_endpoints ep, feed_events e WHERE ep.name = $1 AND e.position = $2`,
    [
      endpoint,
      position,
      fields.attempt,
      fields.at,
      fields.outcome,
      fields.status ?? null,
      fields.excerpt ?? null,
      fields.error ?? null,
    ],
  );
}

beforeEach(async () => {
  await resetEndpoints(bed.database);
  ids = await numberedEvents(bed.database, [
    'payment.received',
    'quarantine.opened',
    'payment.received',
  ]);
  await feed('endpoints add ledger --url https://ledger.example --types payment.* --start 0');
  await feed('endpoints add late --url https://late.example --types * --start 2');
  await deliveryRows(bed.database, 'configured', [1, 2, 3], 'sent');
  await deliveryRows(bed.database, 'ledger', [1], 'sent');
  await attempt('configured', 1, {
    attempt: 1,
    at: '2026-11-01T00:00:05Z',
    outcome: 'sent',
    status: 204,
  });
  await attempt('ledger', 1, {
    attempt: 1,
    at: '2026-11-01T00:00:05Z',
    outcome: 'failed',
    status: 503,
    excerpt: 'busy\nretry later',
  });
  await attempt('ledger', 1, {
    attempt: 2,
    at: '2026-11-01T00:00:07Z',
    outcome: 'failed',
    error: 'connect ECONNREFUSED 127.0.0.1:9',
  });
  await attempt('ledger', 1, {
    attempt: 3,
    at: '2026-11-01T00:00:11Z',
    outcome: 'sent',
    status: 200,
  });
});

describe('feed show', () => {
  it('prints the event and, per endpoint, its state and every attempt, oldest first', async () => {
    const shown = await feed('show', `evt_${ids[0]}`);
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(new RegExp(`^evt_${ids[0]}  payment\\.received  Event/key-1$`, 'm'));
    expect(shown.out).toMatch(/^position 1, created 2026-11-01T00:00:00\.000Z$/m);
    expect(shown.out).toMatch(/^endpoint configured: sent, 1 attempt\(s\), sent /m);
    expect(shown.out).toMatch(
      /^endpoint late: not handed to it: it started after this event \(or its types did not select it then\)$/m,
    );
    const ledger = shown.out.slice(shown.out.indexOf('endpoint ledger'));
    expect(ledger.split('\n').slice(1, 4)).toEqual([
      '  2026-11-01T00:00:05.000Z  #1  failed  503  42 ms  answer: busy\\nretry later',
      '  2026-11-01T00:00:07.000Z  #2  failed  -    42 ms  error: connect ECONNREFUSED 127.0.0.1:9',
      '  2026-11-01T00:00:11.000Z  #3  sent    200  42 ms',
    ]);
  });

  it('says which endpoints have not been handed it yet, and skips those whose types do not select it', async () => {
    const shown = await feed('show', ids[1]!);
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/^endpoint late: not handed to it: it started after this event/m);
    expect(shown.out).not.toContain('endpoint ledger');
    const third = await feed('show', ids[2]!);
    expect(third.out).toMatch(/^endpoint ledger: not fanned out to it yet$/m);
    expect(third.out).toMatch(/^endpoint late: not fanned out to it yet$/m);
  });

  it('an unknown event: exit 1; no id: exit 2', async () => {
    const missing = await feed('show evt_999999');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('no feed event evt_999999');
    expect((await feed('show payment')).code).toBe(2);
  });
});

describe('feed attempts', () => {
  it('lists an endpoint attempts newest first, at most -n, failures only with --failed, since a time', async () => {
    const all = await feed('attempts --endpoint ledger');
    expect(all.code).toBe(0);
    expect(all.out.split('\n').map((line) => line.split('  ')[3])).toEqual(['#3', '#2', '#1']);
    expect(all.out).toContain(`evt_${ids[0]}  position 1  2026-11-01T00:00:11.000Z  #3  sent`);
    expect(all.out).toContain('(instance-a)');

    const newest = await feed('attempts --endpoint ledger -n 1');
    expect(newest.out.split('\n')).toHaveLength(1);
    expect(newest.out).toContain('#3');

    const failed = await feed('attempts --endpoint ledger --failed');
    expect(failed.out.split('\n').map((line) => line.split('  ')[3])).toEqual(['#2', '#1']);

    const since = await feed('attempts --endpoint ledger --since 2026-11-01T00:00:06Z');
    expect(since.out.split('\n').map((line) => line.split('  ')[3])).toEqual(['#3', '#2']);
    const recent = await feed('attempts --endpoint ledger --since 1h');
    expect(recent.out).toBe('no attempts');
  });

  it('refuses without --endpoint or with a bad --since or -n (exit 2), an unknown endpoint (exit 1)', async () => {
    expect((await feed('attempts')).code).toBe(2);
    const since = await feed('attempts', '--endpoint', 'ledger', '--since', 'last week');
    expect(since.code).toBe(2);
    expect(since.err).toContain('--since needs an ISO 8601 time or a duration');
    expect((await feed('attempts --endpoint ledger -n 5000')).code).toBe(2);
    const missing = await feed('attempts --endpoint nobody');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('no endpoint named nobody');
  });
});
