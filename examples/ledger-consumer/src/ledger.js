import { MONEY_TYPES } from './events.js';

/**
 * The consumer's own tables, in its own database (never the receiver's).
 *
 * `ledger_events`: one row per feed event, whichever way it came (push, pull, or both).
 * `event_id` (`evt_<n>`) is the primary key, so an event sent twice (the feed is at least once)
 * is stored once. `amount` is `numeric`, read from the exact decimal string the feed sends,
 * never through a JS number. `body` is the whole event as received (jsonb of the raw text).
 *
 * `ledger_cursor`: how far the pull loop has read, committed with the page it stored.
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS ledger_events (
  event_id     text PRIMARY KEY,
  position     bigint NOT NULL,
  type         text NOT NULL,
  event_name   text NOT NULL,
  business_key text NOT NULL,
  received_at  timestamptz,
  amount       numeric,
  body         jsonb NOT NULL,
  stored_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS ledger_events_key ON ledger_events (event_name, business_key, position);
CREATE TABLE IF NOT EXISTS ledger_cursor (
  feed       text PRIMARY KEY,
  position   bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`;

/** The cursor row's key: one ledger database follows one receiver's feed. */
const CURSOR = 'feed';

/**
 * Stores the events of the JSON array at `path` in `jsonText`, each once: the event body
 * (`body`) is the raw text turned into jsonb by Postgres, so numbers in `payload` stay exactly
 * as sent; the amount is cast from its decimal string to numeric. The caller has checked each
 * event with `eventProblem`. Answers the events newly stored (not those already there).
 */
const INSERT_EVENTS = `
INSERT INTO ledger_events
  (event_id, position, type, event_name, business_key, received_at, amount, body)
SELECT e.body ->> 'id', (e.body ->> 'position')::bigint, e.body ->> 'type',
  e.body #>> '{data,eventName}', e.body #>> '{data,businessKey}',
  (e.body #>> '{data,receivedAt}')::timestamptz,
  CASE WHEN e.body ->> 'type' = ANY($3::text[])
    THEN (e.body #>> '{data,fields,amount}')::numeric END,
  e.body
FROM jsonb_array_elements($1::jsonb #> $2::text[]) WITH ORDINALITY AS e(body, n)
ORDER BY e.n
ON CONFLICT (event_id) DO NOTHING
RETURNING event_id, position, type, event_name, business_key`;

/**
 * @typedef {{ event_id: string, position: string, type: string, event_name: string,
 *   business_key: string }} StoredEvent
 * @typedef {{ query: import('pg').Pool['query'] }} Queryable
 */

/**
 * Creates the tables if missing (under a lock, so two consumers starting at once do not race).
 *
 * @param {import('pg').Pool} pool
 */
export async function ensureSchema(pool) {
  await inTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('ledger-consumer schema'))`);
    await client.query(SCHEMA);
  });
}

/**
 * One event (the raw text of a verified POST), stored once. A single statement: when it
 * returns, it is committed.
 *
 * @param {Queryable} db
 * @param {string} rawText
 * @returns {Promise<StoredEvent[]>} the event if it is new, [] if it was already stored
 */
export async function storeEvent(db, rawText) {
  const result = await db.query(INSERT_EVENTS, [`[${rawText}]`, [], MONEY_TYPES]);
  return result.rows;
}

/**
 * A page of `GET /feed` (its raw text) and the cursor after it, in one transaction: either both
 * are committed or neither, so a restart resumes exactly after the last page stored.
 *
 * @param {import('pg').Pool} pool
 * @param {string} pageText
 * @param {string} next  the page's `next`
 * @returns {Promise<StoredEvent[]>} the events newly stored
 */
export async function storePage(pool, pageText, next) {
  return inTransaction(pool, async (client) => {
    const stored = await client.query(INSERT_EVENTS, [pageText, ['events'], MONEY_TYPES]);
    // GREATEST: a cursor never moves back (two pull loops by mistake only read twice).
    await client.query(
      `INSERT INTO ledger_cursor (feed, position) VALUES ($1, $2)
       ON CONFLICT (feed) DO UPDATE
         SET position = GREATEST(ledger_cursor.position, EXCLUDED.position), updated_at = now()`,
      [CURSOR, next],
    );
    return stored.rows;
  });
}

/**
 * The position after which the pull loop resumes ('0' before the first page).
 *
 * @param {Queryable} db
 * @returns {Promise<string>}
 */
export async function readCursor(db) {
  const result = await db.query('SELECT position FROM ledger_cursor WHERE feed = $1', [CURSOR]);
  return result.rows[0]?.position ?? '0';
}

/**
 * Logs what was newly stored; a quarantined delivery is a warning: money may be waiting.
 *
 * @param {import('./log.js').Log} log
 * @param {StoredEvent[]} stored
 * @param {'push' | 'pull' | 'nats' | 'rabbitmq'} via
 */
export function reportStored(log, stored, via) {
  for (const event of stored) {
    const fields = {
      via,
      eventId: event.event_id,
      position: event.position,
      type: event.type,
      eventName: event.event_name,
      businessKey: event.business_key,
    };
    log.info('event stored', fields);
    if (event.type === 'quarantine.opened') {
      log.warn(
        'quarantine.opened: money may be waiting for a person. The receiver refused an ' +
          'authenticated delivery and kept it; on the receiver: npm run quarantine -- show ' +
          `${event.business_key}, then redrive or resolve it`,
        { ...fields, quarantineId: event.business_key },
      );
    }
  }
}

/**
 * @template T
 * @param {import('pg').Pool} pool
 * @param {(client: import('pg').PoolClient) => Promise<T>} work
 * @returns {Promise<T>}
 */
async function inTransaction(pool, work) {
  const client = await pool.connect();
  /** @type {Error | undefined} */
  let failed;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    failed = error instanceof Error ? error : new Error(String(error));
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    // After a failure the connection is dropped rather than reused (it may be broken).
    client.release(failed);
  }
}
