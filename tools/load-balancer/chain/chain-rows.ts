import pg from 'pg';

/** One business row: a payment (or a direct credit), keyed by its TransactionId. */
export type PaymentTable = 'npp_payments' | 'payto_payments' | 'direct_credits';

interface PaymentRow {
  table: PaymentTable;
  transactionId: string;
  webhookId: string;
}

interface FeedEventRow {
  id: string;
  type: string;
  eventName: string;
  businessKey: string;
  webhookId: string;
  relayState: string;
  attempts: number;
}

/** What the chain left in the database, read straight from Postgres. */
export interface ChainRows {
  /** webhook_id → its rows (more than one would be a double). */
  deliveries: Map<string, { sha256: string; eventName: string }[]>;
  payments: PaymentRow[];
  feedEvents: FeedEventRow[];
  quarantined: number;
  conflicts: number;
}

export interface ChainDatabase {
  read(): Promise<ChainRows>;
  storedWebhookIds(): Promise<Set<string>>;
  tableExists(table: string): Promise<boolean>;
  /** Feed events not yet sent (pending or dead), and how many there are in all. */
  feedProgress(): Promise<{ total: number; unsent: number; dead: number }>;
  close(): Promise<void>;
}

export function openChainDatabase(url: string): ChainDatabase {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const rows = async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    (await pool.query<T>(text, values)).rows;
  const tableExists = async (table: string) =>
    (await rows<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [table]))[0]
      ?.present === true;
  const payments = async (table: PaymentTable): Promise<PaymentRow[]> =>
    (await tableExists(table))
      ? (
          await rows<{ transaction_id: string; webhook_id: string }>(
            `SELECT transaction_id, webhook_id::text FROM ${table}`,
          )
        ).map((row) => ({ table, transactionId: row.transaction_id, webhookId: row.webhook_id }))
      : [];
  return {
    tableExists,
    read: async () => {
      const [deliveries, npp, payto, direct, feed, quarantined, conflicts] = await Promise.all([
        rows<{ webhook_id: string; body_sha256: string; event_name: string }>(
          'SELECT webhook_id::text, body_sha256, event_name FROM webhook_deliveries',
        ),
        payments('npp_payments'),
        payments('payto_payments'),
        payments('direct_credits'),
        rows<{
          id: string;
          type: string;
          event_name: string;
          business_key: string;
          webhook_id: string;
          relay_state: string;
          attempts: number;
        }>(
          `SELECT id::text, type, event_name, business_key, webhook_id::text, relay_state, attempts
           FROM feed_events`,
        ),
        rows<{ n: string }>('SELECT count(*) AS n FROM quarantined_deliveries'),
        rows<{ n: string }>('SELECT count(*) AS n FROM conflicts'),
      ]);
      const byId = new Map<string, { sha256: string; eventName: string }[]>();
      for (const row of deliveries) {
        const list = byId.get(row.webhook_id) ?? [];
        list.push({ sha256: row.body_sha256, eventName: row.event_name });
        byId.set(row.webhook_id, list);
      }
      return {
        deliveries: byId,
        payments: [...npp, ...payto, ...direct],
        feedEvents: feed.map((row) => ({
          id: row.id,
          type: row.type,
          eventName: row.event_name,
          businessKey: row.business_key,
          webhookId: row.webhook_id,
          relayState: row.relay_state,
          attempts: Number(row.attempts),
        })),
        quarantined: Number(quarantined[0]?.n ?? 0),
        conflicts: Number(conflicts[0]?.n ?? 0),
      };
    },
    storedWebhookIds: async () =>
      new Set(
        (await rows<{ id: string }>('SELECT webhook_id::text AS id FROM webhook_deliveries')).map(
          (row) => row.id,
        ),
      ),
    feedProgress: async () => {
      const [row] = await rows<{ total: string; unsent: string; dead: string }>(
        `SELECT count(*) AS total, count(*) FILTER (WHERE relay_state <> 'sent') AS unsent,
           count(*) FILTER (WHERE relay_state = 'dead') AS dead FROM feed_events`,
      );
      return {
        total: Number(row?.total ?? 0),
        unsent: Number(row?.unsent ?? 0),
        dead: Number(row?.dead ?? 0),
      };
    },
    close: () => pool.end(),
  };
}
