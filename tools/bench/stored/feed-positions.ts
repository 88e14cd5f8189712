import type pg from 'pg';

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
