import pg from 'pg';

/** What the receivers left in the shared database, read directly (not through the receivers). */
export interface StoredRows {
  deliveries: Map<
    string,
    { sha256: string; requestId: string | null; remoteAddress: string | null }
  >;
  /** transaction_id → webhook_id */
  payments: Map<string, string>;
  /** rejection_id → webhook_id */
  rejections: Map<string, string>;
  /** Rows of each table against its distinct key: more rows than keys would be a double. */
  doubles: number;
  quarantined: number;
}

export interface Store {
  read(): Promise<StoredRows>;
  /**
   * Empties the delivery tables and the feed's outbox between scenarios (the receivers keep
   * running): a scenario that turns the push relay on must not push the others' events.
   * CASCADE: typed tables that reference the deliveries (direct credits, batches) go too.
   */
  clear(): Promise<void>;
  close(): Promise<void>;
}

export function openStore(url: string): Store {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  return {
    read: async () => {
      const [deliveries, payments, rejections, doubles, quarantined] = await Promise.all([
        pool.query<{
          webhook_id: string;
          body_sha256: string;
          request_id: string | null;
          remote_address: string | null;
        }>('SELECT webhook_id, body_sha256, request_id, remote_address FROM webhook_deliveries'),
        pool.query<{ transaction_id: string; webhook_id: string }>(
          'SELECT transaction_id, webhook_id FROM npp_payments',
        ),
        pool.query<{ rejection_id: string; webhook_id: string }>(
          'SELECT rejection_id, webhook_id FROM credit_rejections',
        ),
        pool.query<{ n: string }>(
          `SELECT (SELECT count(*) - count(DISTINCT webhook_id) FROM webhook_deliveries)
                + (SELECT count(*) - count(DISTINCT body_sha256) FROM webhook_deliveries)
                + (SELECT count(*) - count(DISTINCT transaction_id) FROM npp_payments)
                + (SELECT count(*) - count(DISTINCT (event_name, rejection_id)) FROM credit_rejections)
                AS n`,
        ),
        pool.query<{ n: string }>('SELECT count(*) AS n FROM quarantined_deliveries'),
      ]);
      return {
        deliveries: new Map(
          deliveries.rows.map((row) => [
            row.webhook_id,
            {
              sha256: row.body_sha256,
              requestId: row.request_id,
              remoteAddress: row.remote_address,
            },
          ]),
        ),
        payments: new Map(payments.rows.map((row) => [row.transaction_id, row.webhook_id])),
        rejections: new Map(rejections.rows.map((row) => [row.rejection_id, row.webhook_id])),
        doubles: Number(doubles.rows[0]?.n ?? 0),
        quarantined: Number(quarantined.rows[0]?.n ?? 0),
      };
    },
    clear: async () => {
      await pool.query(
        'TRUNCATE webhook_deliveries, npp_payments, payto_payments, credit_rejections, conflicts, quarantined_deliveries, feed_events CASCADE',
      );
    },
    close: () => pool.end(),
  };
}
