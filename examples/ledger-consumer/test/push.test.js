/* global fetch */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { URL } from 'node:url';
import pg from 'pg';
import { memoryLog } from '../src/log.js';
import { createPushServer } from '../src/push.js';
import {
  SKIP_WITHOUT_DATABASE,
  eventText,
  ledgerSchema,
  newSecret,
  signedHeaders,
} from './helpers.js';

/**
 * @param {import('node:http').Server} server
 * @returns {Promise<string>}
 */
async function listen(server) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return `http://127.0.0.1:${address.port}/ledger`;
}

/** @param {import('node:http').Server} server */
function close(server) {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve(undefined)));
}

describe('push: verify, then store once', { skip: SKIP_WITHOUT_DATABASE }, () => {
  const secret = newSecret();
  /** @type {Awaited<ReturnType<typeof ledgerSchema>>} */
  let ledger;
  /** @type {import('node:http').Server} */
  let server;
  /** @type {ReturnType<typeof memoryLog>} */
  let log;
  let url = '';

  before(async () => {
    ledger = await ledgerSchema();
    log = memoryLog();
    server = createPushServer({ secrets: [secret], db: ledger.pool, log, maxBodyBytes: 64 * 1024 });
    url = await listen(server);
  });
  after(async () => {
    await close(server);
    await ledger.drop();
  });

  /**
   * @param {string} body
   * @param {Record<string, string>} headers
   */
  const post = async (body, headers) =>
    (await fetch(url, { method: 'POST', headers, body })).status;
  const rows = (/** @type {string} */ id) =>
    ledger.query(
      `SELECT event_id, position, type, business_key, amount, pg_typeof(amount)::text AS amount_type,
         body #>> '{data,payload,Amount}' AS payload_amount
       FROM ledger_events WHERE event_id = $1`,
      [id],
    );

  test('a correctly signed event is stored: 204, its amount numeric and exact, the payload numbers as sent', async () => {
    const body = eventText({ position: 1, amount: '12345678901.1234' });
    assert.equal(await post(body, signedHeaders(secret, 'evt_1', body)), 204);
    assert.deepEqual(await rows('evt_1'), [
      {
        event_id: 'evt_1',
        position: '1',
        type: 'payment.received',
        business_key: 'TX1',
        amount: '12345678901.1234',
        amount_type: 'numeric',
        payload_amount: '12345678901.123456789',
      },
    ]);
  });

  test('a wrong signature, another secret, or no signature: 401 and nothing stored', async () => {
    const body = eventText({ position: 2 });
    const good = signedHeaders(secret, 'evt_2', body);
    assert.equal(await post(body, { ...good, 'webhook-signature': 'v1,AAAA' }), 401);
    assert.equal(await post(body, signedHeaders(newSecret(), 'evt_2', body)), 401);
    /** @type {Record<string, string>} */
    const unsigned = { ...good };
    delete unsigned['webhook-signature'];
    assert.equal(await post(body, unsigned), 401);
    // The body changed after signing (here: the amount).
    assert.equal(await post(body.replace('"125.5"', '"925.5"'), good), 401);
    // The id is signed too: the same body under another webhook-id does not verify.
    assert.equal(await post(body, { ...good, 'webhook-id': 'evt_3' }), 401);
    assert.deepEqual(await rows('evt_2'), []);
  });

  test('a replayed POST (right signature, timestamp 10 minutes old) is refused: 401', async () => {
    const body = eventText({ position: 4 });
    const old = signedHeaders(secret, 'evt_4', body, new Date(Date.now() - 10 * 60_000));
    assert.equal(await post(body, old), 401);
    const future = signedHeaders(secret, 'evt_4', body, new Date(Date.now() + 10 * 60_000));
    assert.equal(await post(body, future), 401);
    assert.deepEqual(await rows('evt_4'), []);
    // The same event, sent again now (as the relay retries: a fresh timestamp), is accepted.
    assert.equal(await post(body, signedHeaders(secret, 'evt_4', body)), 204);
    assert.equal((await rows('evt_4')).length, 1);
  });

  test('an event sent twice (at least once) is answered 204 both times and stored once, the first kept', async () => {
    const body = eventText({ position: 5, amount: '10.00' });
    assert.equal(await post(body, signedHeaders(secret, 'evt_5', body)), 204);
    const again = eventText({ position: 5, amount: '99.99' });
    assert.equal(await post(again, signedHeaders(secret, 'evt_5', again)), 204);
    assert.equal(await post(body, signedHeaders(secret, 'evt_5', body)), 204);
    const stored = await rows('evt_5');
    assert.equal(stored.length, 1);
    assert.equal(stored[0].amount, '10.00');
    assert.ok(log.lines.some((l) => l.msg === 'event already stored' && l.eventId === 'evt_5'));
  });

  test('signed but unreadable: not JSON, not an event, id differing from webhook-id, a payment without an exact amount: 400', async () => {
    const cases = [
      ['evt_6', 'not json {'],
      ['evt_6', '[1,2]'],
      ['evt_6', ''],
      ['evt_6', JSON.stringify({ id: 'evt_6', type: 'payment.received' })],
      ['evt_7', eventText({ position: 6 })],
      ['evt_6', eventText({ position: 6, amount: null })],
      ['evt_6', eventText({ position: 6 }).replace('"125.5"', '125.5')],
      ['evt_6', eventText({ position: 6 }).replace('"125.5"', '"1e3"')],
    ];
    for (const [id, body] of cases) {
      assert.equal(await post(body, signedHeaders(secret, id, body)), 400, body);
    }
    assert.equal(
      await ledger
        .query(`SELECT 1 FROM ledger_events WHERE event_id IN ('evt_6', 'evt_7')`)
        .then((r) => r.length),
      0,
    );
  });

  test('a body above MAX_BODY_BYTES is refused 413 without reading it all', async () => {
    const body = eventText({ position: 8 }).replace('"TX8"', `"${'x'.repeat(70 * 1024)}"`);
    assert.equal(await post(body, signedHeaders(secret, 'evt_8', body)), 413);
    assert.deepEqual(await rows('evt_8'), []);
  });

  test('quarantine.opened is stored, without an amount, and logged as a warning: money may be waiting', async () => {
    const body = eventText({
      position: 9,
      type: 'quarantine.opened',
      businessKey: '17',
      amount: null,
    });
    assert.equal(await post(body, signedHeaders(secret, 'evt_9', body)), 204);
    const [row] = await rows('evt_9');
    assert.equal(row.amount, null);
    const warning = log.lines.find((l) => l.level === 'warn' && l.eventId === 'evt_9');
    assert.match(String(warning?.msg), /money may be waiting/);
    assert.equal(warning?.quarantineId, '17');
  });

  test('anything but a POST: 405; GET /healthz: 200', async () => {
    assert.equal((await fetch(url)).status, 405);
    assert.equal((await fetch(new URL('/healthz', url))).status, 200);
  });
});

describe('push: secrets and failures', () => {
  test('during a rotation (two secrets configured) either one verifies; a database failure is 503 so the relay retries', async () => {
    const [oldSecret, newSecretText] = [newSecret(), newSecret()];
    // Nothing listens on port 1: every statement fails at once.
    const pool = new pg.Pool({
      connectionString: 'postgres://nobody@127.0.0.1:1/none',
      connectionTimeoutMillis: 2000,
    });
    const log = memoryLog();
    const server = createPushServer({ secrets: [oldSecret, newSecretText], db: pool, log });
    const url = await listen(server);
    try {
      const body = eventText({ position: 1 });
      for (const secret of [oldSecret, newSecretText]) {
        const res = await fetch(url, {
          method: 'POST',
          headers: signedHeaders(secret, 'evt_1', body),
          body,
        });
        assert.equal(res.status, 503);
      }
      const res = await fetch(url, {
        method: 'POST',
        headers: signedHeaders(newSecret(), 'evt_1', body),
        body,
      });
      assert.equal(res.status, 401);
      assert.ok(
        log.lines.some(
          (l) => l.level === 'error' && /relay will send it again/.test(String(l.msg)),
        ),
      );
    } finally {
      await close(server);
      await pool.end();
    }
  });
});
