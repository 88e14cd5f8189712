/* global AbortController */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, beforeEach, describe, test } from 'node:test';
import { setTimeout } from 'node:timers';
import { URL } from 'node:url';
import { readCursor } from '../src/ledger.js';
import { memoryLog } from '../src/log.js';
import { pageProblem, runPull } from '../src/pull.js';
import { SKIP_WITHOUT_DATABASE, eventText, eventually, ledgerSchema } from './helpers.js';

const TOKEN = 'ledger-test-feed-token-0123456789';
const FAST = { baseMs: 10, maxMs: 50 };

/**
 * A stand-in for the receiver's `GET /feed`: the same query, token and answer; an empty page
 * with `wait` is held until an event is added (a long poll), at most `wait` seconds.
 */
async function fakeFeed() {
  /** @type {{ position: number, text: string }[]} */
  const events = [];
  /** @type {URLSearchParams[]} */
  const requests = [];
  /** @type {number[]} statuses to answer instead of a page, first one first */
  const failures = [];
  /** @type {Set<() => void>} */
  const waiting = new Set();
  /** @type {((after: number) => string | undefined) | undefined} a page text to serve instead */
  let override;

  const server = createServer((req, res) => {
    const query = new URL(req.url ?? '/', 'http://feed').searchParams;
    requests.push(query);
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorised"}');
      return;
    }
    const failure = failures.shift();
    if (failure !== undefined) {
      res.writeHead(failure).end();
      return;
    }
    const afterPosition = Number(query.get('after') ?? '0');
    const limit = Number(query.get('limit') ?? '100');
    const wait = Number(query.get('wait') ?? '0');
    const page = () => events.filter((e) => e.position > afterPosition).slice(0, limit);
    const respond = () => {
      waiting.delete(respond);
      if (res.writableEnded) return;
      const text =
        override?.(afterPosition) ??
        `{"events":[${page()
          .map((e) => e.text)
          .join(',')}],"next":"${page().at(-1)?.position ?? afterPosition}"}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    };
    if (page().length > 0 || wait === 0 || override) return respond();
    waiting.add(respond);
    setTimeout(respond, wait * 1000).unref();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}/feed`,
    requests,
    failures,
    /** @param {number[]} positions */
    add(...positions) {
      for (const position of positions) events.push({ position, text: eventText({ position }) });
      events.sort((a, b) => a.position - b.position);
      for (const respond of [...waiting]) respond();
    },
    /** @param {((after: number) => string | undefined) | undefined} serve */
    serveInstead(serve) {
      override = serve;
    },
    reset() {
      events.length = 0;
      requests.length = 0;
      failures.length = 0;
      override = undefined;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

describe('pull: pages and the cursor in one transaction', { skip: SKIP_WITHOUT_DATABASE }, () => {
  /** @type {Awaited<ReturnType<typeof ledgerSchema>>} */
  let ledger;
  /** @type {Awaited<ReturnType<typeof fakeFeed>>} */
  let feed;

  before(async () => {
    feed = await fakeFeed();
  });
  beforeEach(async () => {
    await ledger?.drop();
    ledger = await ledgerSchema();
    feed.reset();
  });
  after(async () => {
    await ledger?.drop();
    await feed.close();
  });

  /** Runs the loop until `until` holds, then stops it as SIGTERM would; answers its log. */
  const pullUntil = async (
    /** @type {() => Promise<boolean>} */ until,
    /** @type {string} */ what,
    token = TOKEN,
  ) => {
    const log = memoryLog();
    const stop = new AbortController();
    const config = { feedUrl: feed.url, token, limit: 2, waitSeconds: 20 };
    const running = runPull({ config, pool: ledger.pool, log, signal: stop.signal, backoff: FAST });
    try {
      await eventually(until, what);
    } finally {
      stop.abort();
      await running;
    }
    return log;
  };
  const stored = async () =>
    (await ledger.query('SELECT event_id FROM ledger_events ORDER BY position')).map(
      (r) => r.event_id,
    );

  test('reads every page (limit 2), stores each event once with its exact amount, and the cursor follows', async () => {
    feed.add(1, 2, 3, 4, 5);
    await pullUntil(async () => (await readCursor(ledger.pool)) === '5', 'cursor 5');
    assert.deepEqual(await stored(), ['evt_1', 'evt_2', 'evt_3', 'evt_4', 'evt_5']);
    assert.deepEqual(
      feed.requests.slice(0, 3).map((q) => [q.get('after'), q.get('limit'), q.get('wait')]),
      [
        ['0', '2', '20'],
        ['2', '2', '20'],
        ['4', '2', '20'],
      ],
    );
    const [row] = await ledger.query(
      `SELECT amount, pg_typeof(amount)::text AS type, body #>> '{data,payload,Amount}' AS payload
       FROM ledger_events WHERE event_id = 'evt_1'`,
    );
    assert.deepEqual(row, { amount: '125.5', type: 'numeric', payload: '12345678901.123456789' });
  });

  test('a restart resumes exactly after the cursor: no event read again, new ones stored', async () => {
    feed.add(1, 2, 3);
    await pullUntil(async () => (await readCursor(ledger.pool)) === '3', 'cursor 3');
    feed.requests.length = 0;
    feed.add(4, 5);
    const log = await pullUntil(async () => (await readCursor(ledger.pool)) === '5', 'cursor 5');
    assert.equal(feed.requests[0]?.get('after'), '3');
    assert.deepEqual(await stored(), ['evt_1', 'evt_2', 'evt_3', 'evt_4', 'evt_5']);
    assert.ok(log.lines.some((l) => l.msg === 'pull: reading the feed' && l.after === '3'));
  });

  test('events read again (a crash after storing, before the cursor moved) are stored once', async () => {
    feed.add(1, 2, 3, 4);
    await pullUntil(async () => (await readCursor(ledger.pool)) === '4', 'cursor 4');
    await ledger.query(`UPDATE ledger_cursor SET position = 1`);
    feed.requests.length = 0;
    await pullUntil(async () => feed.requests.length >= 3, 'the pages read again');
    assert.deepEqual(await stored(), ['evt_1', 'evt_2', 'evt_3', 'evt_4']);
    assert.equal(await readCursor(ledger.pool), '4');
  });

  test('a page with one unusable event stores nothing of it and keeps the cursor; retried until the feed is right', async () => {
    feed.add(1, 2);
    const broken = `{"events":[${eventText({ position: 1 })},${eventText({ position: 2 }).replace('"125.5"', '125.5')}],"next":"2"}`;
    feed.serveInstead(() => broken);
    const log = memoryLog();
    const stop = new AbortController();
    const config = { feedUrl: feed.url, token: TOKEN, limit: 2, waitSeconds: 20 };
    const running = runPull({ config, pool: ledger.pool, log, signal: stop.signal, backoff: FAST });
    try {
      await eventually(() => feed.requests.length >= 3, 'retries');
      assert.deepEqual(await stored(), []);
      assert.equal(await readCursor(ledger.pool), '0');
      assert.match(
        String(log.lines.find((l) => l.msg === 'pull: failed; retrying')?.error),
        /exact decimal/,
      );
      feed.serveInstead(undefined);
      await eventually(async () => (await readCursor(ledger.pool)) === '2', 'cursor 2');
      assert.deepEqual(await stored(), ['evt_1', 'evt_2']);
    } finally {
      stop.abort();
      await running;
    }
  });

  test('a refused token and a 503 are retried with back-off, logged, never fatal', async () => {
    feed.add(1);
    const refused = await pullUntil(
      async () => feed.requests.length >= 3,
      'retries',
      'wrong-token',
    );
    assert.match(
      String(refused.lines.find((l) => l.level === 'warn')?.error),
      /401 \(FEED_TOKEN refused\)/,
    );
    feed.failures.push(503, 503);
    await pullUntil(async () => (await readCursor(ledger.pool)) === '1', 'cursor 1');
    assert.deepEqual(await stored(), ['evt_1']);
  });

  test('a hole in the positions (events pruned before they were read) is logged as an error, the rest stored', async () => {
    feed.add(4, 5);
    const log = await pullUntil(async () => (await readCursor(ledger.pool)) === '5', 'cursor 5');
    const hole = log.lines.find((l) => l.level === 'error');
    assert.deepEqual([hole?.from, hole?.to], ['1', '3']);
    assert.deepEqual(await stored(), ['evt_4', 'evt_5']);
  });

  test('stopping during a long poll ends the loop at once', async () => {
    const log = memoryLog();
    const stop = new AbortController();
    const config = { feedUrl: feed.url, token: TOKEN, limit: 2, waitSeconds: 20 };
    const running = runPull({ config, pool: ledger.pool, log, signal: stop.signal, backoff: FAST });
    await eventually(() => feed.requests.length >= 1, 'the long poll');
    const started = Date.now();
    stop.abort();
    await running;
    assert.ok(Date.now() - started < 1000, `stopped in ${Date.now() - started} ms`);
    assert.ok(log.lines.some((l) => l.msg === 'pull: stopped'));
  });
});

describe('pull: what a page must be', () => {
  test('positions ascending after the cursor, next the last of them, every event well formed', () => {
    const page = (/** @type {number[]} */ positions, /** @type {string} */ next) =>
      JSON.parse(
        `{"events":[${positions.map((p) => eventText({ position: p })).join(',')}],"next":"${next}"}`,
      );
    assert.equal(pageProblem(page([1, 2], '2'), '0'), undefined);
    assert.equal(pageProblem(page([], '7'), '7'), undefined);
    assert.match(String(pageProblem(page([2, 1], '1'), '0')), /not after/);
    assert.match(String(pageProblem(page([3], '3'), '3')), /not after/);
    assert.match(String(pageProblem(page([1, 2], '5'), '0')), /next 5/);
    assert.match(String(pageProblem(page([], '0'), '7')), /empty page/);
    assert.match(String(pageProblem({ events: [{}], next: '1' }, '0')), /id must be/);
    assert.match(String(pageProblem({ next: '1' }, '0')), /events must be an array/);
  });
});
