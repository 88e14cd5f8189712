import { beforeEach, describe, expect, it } from 'vitest';
import { assignPositions } from '../../../src/feed/assigner.ts';
import { runFeedCommand } from '../../support/command-line.ts';
import { sendDelivery } from '../../support/deliveries.ts';
import { emptyFeed } from '../../support/feed-endpoints.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * The operator's feed commands on endpoints, without a relay running: `status` per endpoint,
 * `pause`/`resume` of one or all, `dead-letters`/`redrive` of one endpoint, and `start-after`
 * on an endpoint whose fan-out has not reached the events yet (they are skipped by moving its
 * cursor, counted by type through its filter), by position, `now` or a time.
 */

const bed = useTestbed();
let built: TestApp;

beforeEach(async () => {
  built = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
  await emptyFeed(bed.database);
});

const send = (body: unknown) =>
  sendDelivery(built.app, {
    body: JSON.stringify(body),
    event: 'NPPReceivePayment',
    signWith: bed.signer.privateKey,
  });

async function feed(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runFeedCommand(
    bed.database.db,
    args,
    (line) => out.push(line),
    (line) => err.push(line),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Two payments and a quarantine event, numbered 1 to 3; an endpoint for payments only. */
async function threeEventsAndSecond(options: { paused: boolean; enabled?: boolean }) {
  await send(nppPayment()).expect(200);
  await send(nppPayment()).expect(200);
  await send({ ...nppPayment(), Amount: 'not money' }).expect(400); // quarantine.opened
  await assignPositions(bed.database.db);
  await bed.database.query(
    `INSERT INTO feed_endpoints (name, kind, target, types, paused, paused_reason, enabled)
     VALUES ('second', 'http', 'https://consumer.test/feed', '{payment.*}', $1,
       CASE WHEN $1 THEN 'turning on' END, $2)`,
    [options.paused, options.enabled ?? true],
  );
}

const cursors = async () =>
  Object.fromEntries(
    (
      await bed.database.query<{ name: string; fanned_through: string }>(
        'SELECT name, fanned_through::text FROM feed_endpoints ORDER BY name',
      )
    ).map((row) => [row.name, row.fanned_through]),
  );

describe('feed start-after on an endpoint not yet fanned out', () => {
  it('when run with --endpoint, then the events its filter selects are planned by type and skipped by moving its cursor; other endpoints are untouched', async () => {
    await threeEventsAndSecond({ paused: true });

    const dry = await feed('start-after', 'now', '--endpoint', 'second', '--dry-run');
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out.split('\n')[0]).toBe(
      'up to position 3: 2 pending event(s) would be marked sent without relaying them:',
    );
    expect(dry.out).toMatch(/^ {2}payment\.received +2$/m);
    expect(dry.out).not.toContain('quarantine.opened');
    expect(dry.out).toMatch(/^endpoint second: paused$/m);
    expect(await cursors()).toEqual({ configured: '0', second: '0' });

    const done = await feed('start-after', 'now', '--endpoint', 'second');
    expect(done.code, done.err).toBe(0);
    expect(done.out).toContain('skipped 2 event(s) not yet fanned out to second');
    expect(done.out.split('\n').at(-1)).toBe(
      'marked 2 event(s) up to position 3 as sent without relaying them',
    );
    expect(await cursors()).toEqual({ configured: '0', second: '3' });
    expect(await bed.database.count('feed_endpoint_events')).toBe(0);

    // Run again: nothing left to skip, the cursor stays (never moves down either).
    const again = await feed('start-after', '1', '--endpoint', 'second');
    expect(again.out.split('\n').at(-1)).toBe(
      'marked 0 event(s) up to position 1 as sent without relaying them',
    );
    expect(await cursors()).toEqual({ configured: '0', second: '3' });
  });

  it('when the endpoint is running, then start-after is refused and its cursor stays; --force moves it', async () => {
    await threeEventsAndSecond({ paused: false });
    const refused = await feed('start-after', '2', '--endpoint', 'second');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^refused, nothing marked: endpoint second is not paused/);
    expect(await cursors()).toEqual({ configured: '0', second: '0' });
    const forced = await feed('start-after', '2', '--endpoint', 'second', '--force');
    expect(forced.code, forced.err).toBe(0);
    expect(await cursors()).toEqual({ configured: '0', second: '2' });
  });

  it('when given a time, then it starts before the first event created at or after it; a position past the last one, or an unknown endpoint, is refused', async () => {
    await threeEventsAndSecond({ paused: true });
    await bed.database.query(
      `UPDATE feed_events SET created_at = now() - interval '2 hours' WHERE position = 1`,
    );
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const dry = await feed('start-after', since, '--endpoint', 'second', '--dry-run');
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out.split('\n')[0]).toMatch(/^up to position 1: 1 pending event/);

    expect((await feed('start-after', '4', '--endpoint', 'second')).code).toBe(2);
    expect((await feed('start-after', 'yesterday', '--endpoint', 'second')).code).toBe(2);
    expect((await feed('start-after', 'now', '--endpoint', 'nope')).code).toBe(1);
    expect(await cursors()).toEqual({ configured: '0', second: '0' });
  });
});

describe('status, pause and resume, dead letters per endpoint', () => {
  it('when asked for status, then each endpoint is listed with its state, cursor, backlog and dead letters; a disabled one says it holds back the prune', async () => {
    await threeEventsAndSecond({ paused: true, enabled: false });
    await bed.database.query(
      `INSERT INTO feed_endpoint_events (endpoint_id, position, event_id, type, event_name,
         business_key, state)
       SELECT (SELECT id FROM feed_endpoints WHERE name = 'configured'), position, id, type,
         event_name, business_key, CASE WHEN position = 1 THEN 'dead' ELSE 'pending' END
       FROM feed_events WHERE position <= 2`,
    );
    await bed.database.query(
      `UPDATE feed_endpoints SET fanned_through = 2 WHERE name = 'configured'`,
    );
    const status = await feed('status');
    expect(status.code, status.err).toBe(0);
    expect(status.out).toContain('last position:        3');
    expect(status.out).toMatch(/^endpoint configured \(http\): running$/m);
    expect(status.out).toMatch(/^ {2}fanned through: +2 \(1 later position\(s\) not yet\)$/m);
    expect(status.out).toMatch(/^ {2}backlog: +1 \(oldest \d+ s\)$/m);
    expect(status.out).toMatch(/^ {2}dead letters: +1$/m);
    expect(status.out).toMatch(/^endpoint second \(http\): disabled$/m);
    expect(status.out).toMatch(/^ {2}holds back the prune: no event above position 0 goes/m);
    expect(status.out.match(/holds back the prune/g)).toHaveLength(1);
  });

  it('when one endpoint is paused, then only it is; resume without --endpoint resumes every one', async () => {
    await threeEventsAndSecond({ paused: false });
    const paused = await feed('pause', '--endpoint', 'second', 'consumer', 'moving');
    expect(paused.out).toBe('paused on every instance: second');
    const states = () =>
      bed.database.query('SELECT name, paused, paused_reason FROM feed_endpoints ORDER BY name');
    expect(await states()).toEqual([
      { name: 'configured', paused: false, paused_reason: null },
      { name: 'second', paused: true, paused_reason: 'consumer moving' },
    ]);
    expect((await feed('pause')).out).toBe('paused on every instance: configured, second');
    expect((await feed('resume')).out).toBe('resumed: configured, second');
    expect((await states()).every((row) => row.paused === false)).toBe(true);
    expect((await feed('pause', '--endpoint', 'nope')).code).toBe(1);
  });

  it('when an endpoint has a dead letter, then it is listed under that endpoint and re-driven there only with --endpoint', async () => {
    await threeEventsAndSecond({ paused: false });
    await bed.database.query(
      `INSERT INTO feed_endpoint_events (endpoint_id, position, event_id, type, event_name,
         business_key, state, attempts, dead_at, last_error)
       SELECT ep.id, e.position, e.id, e.type, e.event_name, e.business_key, 'dead', 4, now(),
         'HTTP 500'
       FROM feed_events e, feed_endpoints ep WHERE e.position = 1 AND ep.name = 'second'`,
    );
    const [event] = await bed.database.query<{ id: string }>(
      'SELECT id::text FROM feed_events WHERE position = 1',
    );
    const listed = await feed('dead-letters', '--endpoint', 'second');
    expect(listed.out).toMatch(
      new RegExp(`^second\\t${event!.id}\\tposition 1\\tpayment\\.received\\t`),
    );
    expect((await feed('dead-letters', '--endpoint', 'configured')).out).toBe('no dead letters');
    expect((await feed('dead-letters')).out.split('\n')).toHaveLength(1);

    expect((await feed('redrive', '999999')).code).toBe(1);
    expect((await feed('redrive', event!.id, '--endpoint', 'configured')).code).toBe(1);
    expect((await feed('redrive', event!.id, '--endpoint', 'nobody')).code).not.toBe(0);
    const redriven = await feed('redrive', `evt_${event!.id}`, '--endpoint', 'second');
    expect(redriven.code, redriven.err).toBe(0);
    expect(
      await bed.database.query('SELECT state, attempts, dead_at FROM feed_endpoint_events'),
    ).toEqual([{ state: 'pending', attempts: 0, dead_at: null }]);
    // Without --endpoint: wherever it is a dead letter (here `second` again, once more dead).
    await bed.database.query(`UPDATE feed_endpoint_events SET state = 'dead', dead_at = now()`);
    const anywhere = await feed('redrive', event!.id);
    expect(anywhere.code, anywhere.err).toBe(0);
    expect(anywhere.out).toBe(`re-driven event ${event!.id} (1 endpoint(s))`);
    expect(await bed.database.query('SELECT state FROM feed_endpoint_events')).toEqual([
      { state: 'pending' },
    ]);
  });
});
