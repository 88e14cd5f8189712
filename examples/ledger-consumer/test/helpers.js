import { randomBytes } from 'node:crypto';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { ensureSchema } from '../src/ledger.js';

/** The tests that store need a Postgres; each file works in a fresh schema of it. */
export const DATABASE_URL = process.env.LEDGER_DATABASE_URL;

export const SKIP_WITHOUT_DATABASE =
  DATABASE_URL === undefined || DATABASE_URL.trim() === ''
    ? 'LEDGER_DATABASE_URL is not set: set it to a Postgres database these tests may create and ' +
      'drop schemas in, e.g. LEDGER_DATABASE_URL=postgres://postgres@127.0.0.1:5432/ledger_test npm test'
    : false;

/** A fresh `whsec_` secret (32 random bytes), as the receiver's FEED_HTTP_SECRET would be. */
export function newSecret() {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * A schema of its own in LEDGER_DATABASE_URL with the ledger tables, and a pool using it.
 *
 * @returns {Promise<{ pool: pg.Pool, query: (text: string, values?: unknown[]) => Promise<any[]>, drop: () => Promise<void> }>}
 */
export async function ledgerSchema() {
  const name = `ledger_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${name}`);
  const pool = new pg.Pool({
    connectionString: DATABASE_URL,
    options: `-c search_path=${name}`,
    max: 4,
  });
  await ensureSchema(pool);
  return {
    pool,
    query: async (text, values) => (await pool.query(text, values)).rows,
    drop: async () => {
      await pool.end();
      await admin.query(`DROP SCHEMA ${name} CASCADE`);
      await admin.end();
    },
  };
}

/**
 * The raw text of a feed event as the receiver renders it. The payload's amount is written
 * with more digits than a JS number holds, to show they survive.
 *
 * @param {{ position: number, type?: string, businessKey?: string, amount?: string | null }} options
 */
export function eventText({ position, type = 'payment.received', businessKey, amount = '125.5' }) {
  const key = businessKey ?? `TX${position}`;
  const fields = amount === null ? { transaction_id: key } : { transaction_id: key, amount };
  const envelope = {
    id: `evt_${position}`,
    type,
    position: String(position),
    timestamp: '2026-11-22T03:35:11.329Z',
    data: {
      eventName: 'NPPReceivePayment',
      businessKey: key,
      webhookId: String(1000 + position),
      receivedAt: '2026-11-22T03:35:11.201Z',
      fields,
      payload: '__PAYLOAD__',
    },
  };
  return JSON.stringify(envelope).replace(
    '"__PAYLOAD__"',
    `{"TransactionId":"${key}","Amount":12345678901.123456789}`,
  );
}

/**
 * Standard Webhooks headers for `body`, signed with `secret` at `at` (as the relay does).
 *
 * @param {string} secret
 * @param {string} id
 * @param {string} body
 * @param {Date} [at]
 */
export function signedHeaders(secret, id, body, at = new Date()) {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

/**
 * Waits until `check` holds, at most `timeoutMs`.
 *
 * @param {() => Promise<boolean> | boolean} check
 * @param {string} what
 * @param {number} [timeoutMs]
 */
export async function eventually(check, what, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
