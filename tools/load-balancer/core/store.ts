import pg from 'pg';
import { TYPED_TABLES } from '../../../src/receiver/contract.ts';

/** A delivery that was sent, with the rows it must leave. */
export interface ExpectedDelivery {
  webhookId: string;
  eventName: string;
  /** SHA-256 (hex) of the exact bytes sent. */
  sha256: string;
  /** Its business rows: a payment's TransactionId, each record of a batch, each rejection id. */
  rows: readonly { table: string; key: string }[];
}

/** A stored delivery row (more than one per Webhookid would be a double). */
interface StoredDelivery {
  sha256: string;
  eventName: string;
  requestId: string | null;
  remoteAddress: string | null;
}

/** A business row: a payment, a direct credit or a rejection, by its table's business key. */
interface BusinessRow {
  table: string;
  key: string;
  webhookId: string;
}

interface FeedEventRow {
  id: string;
  eventName: string;
  businessKey: string;
  relayState: string;
  attempts: number;
}

/** What the receivers left in the shared database, read directly (not through the receivers). */
export interface StoredRows {
  /** webhook_id → its rows. */
  deliveries: Map<string, StoredDelivery[]>;
  /** Every typed table's rows (the registry's, src/receiver/events/event-types.ts). */
  business: BusinessRow[];
  feedEvents: FeedEventRow[];
  quarantined: number;
  conflicts: number;
}

export interface Store {
  read(): Promise<StoredRows>;
  storedWebhookIds(): Promise<Set<string>>;
  /** Feed events not yet sent (pending or dead), and how many there are in all. */
  feedProgress(): Promise<{ total: number; unsent: number; dead: number }>;
  /**
   * Empties the delivery tables and the feed's outbox between scenarios (the receivers keep
   * running): a scenario that turns the push relay on must not push the others' events.
   * CASCADE: the tables that reference the deliveries (direct-credit batches) go too.
   */
  clear(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Each event with its state at the endpoint FEED_HTTP_URL declares (`configured`, the one the
 * chain's receivers push to): pending until its row is fanned out, then that row's state.
 */
const CONFIGURED_STATE = `coalesce(x.state, 'pending') AS "relayState",
    coalesce(x.attempts, 0) AS attempts
  FROM feed_events e
  LEFT JOIN feed_endpoint_events x ON x.event_id = e.id
    AND x.endpoint_id = (SELECT id FROM feed_endpoints WHERE name = 'configured')`;

export function openStore(url: string): Store {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const rows = async <T extends pg.QueryResultRow>(text: string) =>
    (await pool.query<T>(text)).rows;
  const count = async (from: string) =>
    Number((await rows<{ n: string }>(`SELECT count(*) AS n FROM ${from}`))[0]?.n ?? 0);
  const businessRows = async ({ table, businessKey }: (typeof TYPED_TABLES)[number]) =>
    rows<BusinessRow>(
      `SELECT '${table}' AS "table", ${businessKey}::text AS key, webhook_id::text AS "webhookId"
       FROM ${table}`,
    );
  return {
    read: async () => {
      const [deliveries, business, feedEvents, quarantined, conflicts] = await Promise.all([
        rows<StoredDelivery & { webhookId: string }>(
          `SELECT webhook_id::text AS "webhookId", body_sha256 AS sha256, event_name AS "eventName",
             request_id AS "requestId", remote_address AS "remoteAddress"
           FROM webhook_deliveries`,
        ),
        Promise.all(TYPED_TABLES.map(businessRows)),
        rows<FeedEventRow>(
          `SELECT e.id::text, e.event_name AS "eventName", e.business_key AS "businessKey",
             ${CONFIGURED_STATE}`,
        ),
        count('quarantined_deliveries'),
        count('conflicts'),
      ]);
      const byId = new Map<string, StoredDelivery[]>();
      for (const { webhookId, ...row } of deliveries) {
        byId.set(webhookId, [...(byId.get(webhookId) ?? []), row]);
      }
      return { deliveries: byId, business: business.flat(), feedEvents, quarantined, conflicts };
    },
    storedWebhookIds: async () =>
      new Set(
        (await rows<{ id: string }>('SELECT webhook_id::text AS id FROM webhook_deliveries')).map(
          (row) => row.id,
        ),
      ),
    feedProgress: async () => {
      const [row] = await rows<{ total: string; unsent: string; dead: string }>(
        `SELECT count(*) AS total, count(*) FILTER (WHERE "relayState" <> 'sent') AS unsent,
           count(*) FILTER (WHERE "relayState" = 'dead') AS dead
         FROM (SELECT ${CONFIGURED_STATE}) AS events`,
      );
      return {
        total: Number(row?.total ?? 0),
        unsent: Number(row?.unsent ?? 0),
        dead: Number(row?.dead ?? 0),
      };
    },
    clear: async () => {
      const typed = TYPED_TABLES.map((entry) => entry.table);
      const tables = ['webhook_deliveries', ...typed, 'conflicts', 'quarantined_deliveries'];
      await pool.query(
        `TRUNCATE ${tables.join(', ')}, feed_events, feed_endpoint_events, feed_attempts CASCADE`,
      );
      // Positions start again from 1: so does every endpoint's fan-out.
      await pool.query('UPDATE feed_endpoints SET fanned_through = 0');
    },
    close: () => pool.end(),
  };
}
