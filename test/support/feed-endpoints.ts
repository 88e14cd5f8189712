import type { TestDatabase } from './test-database.ts';

/**
 * An empty feed with only the endpoint FEED_HTTP_URL declares (`configured`), running, its
 * cursor at 0: positions start again from 1, so its cursor must too.
 */
export async function emptyFeed(database: Pick<TestDatabase, 'query'>): Promise<void> {
  await database.query(`DELETE FROM feed_endpoints WHERE name <> 'configured'`);
  await database.query(
    'UPDATE feed_endpoints SET paused = false, paused_reason = NULL, fanned_through = 0',
  );
  await database.query('DELETE FROM feed_endpoint_events');
  await database.query('DELETE FROM feed_events');
}
