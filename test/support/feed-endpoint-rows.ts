import type { TestDatabase } from './test-database.ts';

/**
 * Rows for the feed endpoint commands' tests: numbered events (as the assigner would leave
 * them), an endpoint's delivery rows and attempts, written directly, without a relay running.
 */

/** Back to the migration's state: only `configured`, no delivery rows, no attempts. */
export async function resetEndpoints(database: TestDatabase): Promise<void> {
  await database.query(`DELETE FROM feed_endpoints WHERE name <> 'configured'`);
  await database.query('DELETE FROM feed_endpoint_events');
  await database.query('DELETE FROM feed_attempts');
  await database.query(
    `UPDATE feed_endpoints SET types = '{*}', fanned_through = 0, paused = false,
       enabled = true, rate_per_second = NULL WHERE name = 'configured'`,
  );
}

/** Events numbered 1.. in order, each of the type given, its own business key: their ids. */
export async function numberedEvents(database: TestDatabase, types: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, type] of types.entries()) {
    const [row] = await database.query<{ id: string }>(
      `INSERT INTO feed_events (position, type, event_name, business_key, webhook_id, created_at)
       VALUES ($1, $2, 'Event', $3, $1, $4) RETURNING id::text`,
      [i + 1, type, `key-${i + 1}`, new Date(Date.UTC(2026, 10, 1, 0, i))],
    );
    ids.push(row!.id);
  }
  return ids;
}

/** A delivery row of `endpoint` for each event at `positions`, in `state`. */
export async function deliveryRows(
  database: TestDatabase,
  endpoint: string,
  positions: number[],
  state: 'pending' | 'sent' | 'dead',
): Promise<void> {
  await database.query(
    `INSERT INTO feed_endpoint_events (endpoint_id, position, event_id, type, event_name,
       business_key, state, attempts, sent_at, dead_at)
     SELECT ep.id, e.position, e.id, e.type, e.event_name, e.business_key, $3::text,
       CASE WHEN $3 = 'pending' THEN 0 ELSE 1 END,
       CASE WHEN $3 = 'sent' THEN now() END, CASE WHEN $3 = 'dead' THEN now() END
     FROM feed_events e, feed_endpoints ep
     WHERE ep.name = $1 AND e.position = ANY($2::bigint[])`,
    [endpoint, positions, state],
  );
}
