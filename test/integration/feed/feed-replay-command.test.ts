import { beforeEach, describe, expect, it } from 'vitest';
import { feedOutput } from '../../support/command-line.ts';
import { deliveryRows, numberedEvents, resetEndpoints } from '../../support/feed-endpoint-rows.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * `feed replay`: an endpoint's delivered events handed to it again, only those, only there;
 * never an unbounded range without --all; progress by batch.
 */

const bed = useTestbed();
const feed = (words: string, ...more: string[]) =>
  feedOutput(bed.database.db, ...words.split(' '), ...more);

interface Delivery {
  position: string;
  state: string;
  attempts: number;
  replays: number;
  sent_at: Date | null;
}
const deliveries = (endpoint: string) =>
  bed.database.query<Delivery>(
    `SELECT r.position::text, r.state, r.attempts, r.replays, r.sent_at
     FROM feed_endpoint_events r JOIN feed_endpoints e ON e.id = r.endpoint_id
     WHERE e.name = $1 ORDER BY r.position`,
    [endpoint],
  );
/** Each row as position:state:replays, in position order, space-separated. */
const states = async (endpoint: string) =>
  (await deliveries(endpoint)).map((r) => `${r.position}:${r.state}:${r.replays}`).join(' ');

beforeEach(async () => {
  await resetEndpoints(bed.database);
  await numberedEvents(bed.database, [
    'payment.received',
    'quarantine.opened',
    'payment.received',
    'payment.received',
    'quarantine.opened',
    'payment.received',
  ]);
  await feed('endpoints add ledger --url https://ledger.example --types * --start 6');
  await deliveryRows(bed.database, 'ledger', [1, 2, 3, 4], 'sent');
  await deliveryRows(bed.database, 'ledger', [5], 'dead');
  await deliveryRows(bed.database, 'ledger', [6], 'pending');
  await deliveryRows(bed.database, 'configured', [1, 2, 3, 4, 5, 6], 'sent');
});

describe('feed replay', () => {
  it('sets the sent rows of the range back to pending (attempts 0, replays + 1), says what by type, leaves dead letters and other endpoints alone', async () => {
    const dry = await feed('replay --endpoint ledger --from 2 --to 5 --dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(
      /^endpoint ledger, positions 2 to 5, types \*: 3 delivered event\(s\) to hand over again:$/m,
    );
    expect(dry.out).toMatch(/^ {2}payment\.received +2$/m);
    expect(dry.out).toMatch(/^ {2}quarantine\.opened +1$/m);
    expect(dry.out).toMatch(
      /^1 dead letter\(s\) in the range are not replayed: npm run feed -- redrive/m,
    );
    expect(await states('ledger')).toBe('1:sent:0 2:sent:0 3:sent:0 4:sent:0 5:dead:0 6:pending:0');

    const done = await feed('replay --endpoint ledger --from 2 --to 5');
    expect(done.code).toBe(0);
    expect(done.out).toMatch(/^replayed 3…$/m);
    expect(done.out).toMatch(/^replayed 3 event\(s\) to endpoint ledger/m);
    expect(await states('ledger')).toBe(
      '1:sent:0 2:pending:1 3:pending:1 4:pending:1 5:dead:0 6:pending:0',
    );
    const replayed = (await deliveries('ledger')).filter((r) => r.replays > 0);
    expect(replayed.every((r) => r.attempts === 0 && r.sent_at === null)).toBe(true);
    expect(await states('configured')).toBe(
      '1:sent:0 2:sent:0 3:sent:0 4:sent:0 5:sent:0 6:sent:0',
    );
  });

  it('takes a type filter and times: --from a time is the events created from then on', async () => {
    // Events were created a minute apart from 2026-11-01T00:00Z: the fourth at 00:03.
    const byType = await feed(
      'replay --endpoint ledger --from 2026-11-01T00:01:00Z --all --type payment.*',
    );
    expect(byType.code).toBe(0);
    expect(await states('ledger')).toBe(
      '1:sent:0 2:sent:0 3:pending:1 4:pending:1 5:dead:0 6:pending:0',
    );

    const window = await feed('replay --endpoint ledger --from 1 --to 2026-11-01T00:01:00Z');
    expect(window.code).toBe(0);
    expect(await states('ledger')).toBe(
      '1:pending:1 2:sent:0 3:pending:1 4:pending:1 5:dead:0 6:pending:0',
    );
  });

  it('refuses a range with no end without --all, and bad words (exit 2); an unknown endpoint (exit 1); nothing changed', async () => {
    const open = await feed('replay --endpoint ledger --from 1');
    expect(open.code).toBe(2);
    expect(open.err).toContain('a range with no end is refused without --all');
    expect((await feed('replay --from 1 --to 2')).code).toBe(2);
    expect((await feed('replay --endpoint ledger --from soon --to 2')).code).toBe(2);
    expect((await feed('replay --endpoint ledger --all --type payments.*')).code).toBe(2);
    expect((await feed('replay --endpoint nobody --all')).code).toBe(1);
    expect(await states('ledger')).toBe('1:sent:0 2:sent:0 3:sent:0 4:sent:0 5:dead:0 6:pending:0');
  });

  it('goes in batches, printing progress, and takes each row once', async () => {
    await bed.database.query(
      `INSERT INTO feed_events (position, type, event_name, business_key, webhook_id)
       SELECT g, 'payment.received', 'Event', 'k' || g, g FROM generate_series(7, 2506) AS g`,
    );
    await bed.database.query(
      `INSERT INTO feed_endpoint_events (endpoint_id, position, event_id, type, event_name,
         business_key, state, attempts, sent_at)
       SELECT ep.id, e.position, e.id, e.type, e.event_name, e.business_key, 'sent', 1, now()
       FROM feed_events e, feed_endpoints ep WHERE ep.name = 'ledger' AND e.position >= 7`,
    );
    const all = await feed('replay --endpoint ledger --all');
    expect(all.code).toBe(0);
    expect(all.out.split('\n').filter((line) => line.startsWith('replayed'))).toEqual([
      'replayed 1000…',
      'replayed 2000…',
      'replayed 2504…',
      'replayed 2504 event(s) to endpoint ledger: they go out again with their original ids',
    ]);
    const rows = await deliveries('ledger');
    expect(rows.filter((r) => r.state === 'pending' && r.replays === 1)).toHaveLength(2504);
    expect(rows.filter((r) => r.replays > 1)).toHaveLength(0);
  });
});
