import type pg from 'pg';
import type { DeliveryKey } from './copy-plan.ts';

/** The receiver's deliveries: every table a delivery writes has this column. */
export const STORE_KEY: DeliveryKey = { table: 'webhook_deliveries', column: 'webhook_id' };

/**
 * What storing costs in bytes: the size on disk of the tables a delivery writes (every table
 * with a webhook_id, with its indexes and TOAST) per delivery stored, and the WAL a phase
 * wrote per delivery it stored.
 */

export interface StorageFacts {
  deliveries: number;
  /** pg_total_relation_size summed over the delivery tables. */
  bytes: number;
}

export async function readStorage(client: pg.Client): Promise<StorageFacts> {
  const size = await client.query<{ bytes: string }>(
    `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::text AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
        AND EXISTS (SELECT 1 FROM pg_attribute a
                     WHERE a.attrelid = c.oid AND a.attname = $1 AND NOT a.attisdropped)`,
    [STORE_KEY.column],
  );
  const count = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${STORE_KEY.table}"`);
  return { deliveries: Number(count.rows[0]?.n ?? 0), bytes: Number(size.rows[0]?.bytes ?? 0) };
}

/** The cluster's WAL insert position (the whole cluster: other databases' writes count too). */
export async function walPosition(client: pg.Client): Promise<string> {
  const result = await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
  return result.rows[0]?.lsn ?? '0/0';
}

/** Bytes of WAL between two positions ('16/B374D848' is 0x16 << 32 | 0xB374D848). */
export function walBytesBetween(start: string, end: string): number {
  return Number(lsnValue(end) - lsnValue(start));
}

function lsnValue(lsn: string): bigint {
  const [high = '0', low = '0'] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/**
 * The receiver numbers feed events after their commit (its assigner, every 100 ms by default).
 * Rows are copied, and WAL is read after a phase, only once it has caught up, so every copied
 * event has its position and a phase's WAL includes the numbering its deliveries caused. A
 * schema without the feed's position column has nothing to wait for.
 */
export async function waitForFeedPositions(client: pg.Client, timeoutMs = 30_000): Promise<void> {
  const column = await client.query(
    `SELECT 1 FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = 'feed_events' AND column_name = 'position'`,
  );
  if (column.rowCount === 0) return;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const waiting = await client.query<{ n: string }>(
      'SELECT count(*) AS n FROM feed_events WHERE position IS NULL',
    );
    const left = Number(waiting.rows[0]?.n ?? 0);
    if (left === 0) return;
    if (performance.now() > deadline) {
      throw new Error(`${left} feed events still have no position after ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
