import { sql, type Insertable, type Selectable } from 'kysely';
import type { Database, Db } from '../../lib/database/database.ts';

/**
 * The feed_endpoints rows operators manage (`npm run feed -- endpoints …`): read, add, update,
 * disable/enable, remove, and the secrets rotated in place. Each change is one statement whose
 * WHERE carries its guard (at most two secrets, removal only of a disabled endpoint), so two
 * operators at once cannot get past it. The relays re-read the table, so a change takes effect
 * without a restart. The endpoint `configured` is declared by FEED_HTTP_URL: what the
 * environment holds for it (its URL, secrets, timeout…) is refused by the commands, not here.
 */

export type Endpoint = Selectable<Database['feed_endpoints']>;
export type NewEndpoint = Insertable<Database['feed_endpoints']>;

/** What `endpoints update` may change. */
export type EndpointChanges = Partial<
  Pick<
    NewEndpoint,
    | 'target'
    | 'types'
    | 'credentials'
    | 'rate_per_second'
    | 'timeout_ms'
    | 'concurrency'
    | 'max_age_ms'
  >
>;

/** Name's rule (the table's CHECK): checked first, for a clear message. */
export const ENDPOINT_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The endpoint declared by FEED_HTTP_URL (migration 2026-11-29T01-00-00). */
export const CONFIGURED = 'configured';

export function listEndpoints(db: Db): Promise<Endpoint[]> {
  return db.selectFrom('feed_endpoints').selectAll().orderBy('name').execute();
}

export function findEndpoint(db: Db, name: string): Promise<Endpoint | undefined> {
  return db.selectFrom('feed_endpoints').selectAll().where('name', '=', name).executeTakeFirst();
}

/** Adds the endpoint; undefined when one of that name exists already. */
export async function addEndpoint(db: Db, endpoint: NewEndpoint): Promise<Endpoint | undefined> {
  return db
    .insertInto('feed_endpoints')
    .values(endpoint)
    .onConflict((conflict) => conflict.column('name').doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Applies `changes`; false when there is no such endpoint. */
export async function updateEndpoint(
  db: Db,
  name: string,
  changes: EndpointChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('feed_endpoints')
    .set({ ...changes, updated_at: sql`now()` })
    .where('name', '=', name)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Enables or disables it; false when there is no such endpoint. */
export async function setEndpointEnabled(db: Db, name: string, enabled: boolean): Promise<boolean> {
  const result = await db
    .updateTable('feed_endpoints')
    .set({ enabled, updated_at: sql`now()` })
    .where('name', '=', name)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Its events not yet delivered there: what a removal would drop. */
export async function undeliveredCounts(
  db: Db,
  endpointId: string,
): Promise<{ pending: number; dead: number }> {
  const row = await db
    .selectFrom('feed_endpoint_events')
    .select([
      sql<string>`count(*) FILTER (WHERE state = 'pending')`.as('pending'),
      sql<string>`count(*) FILTER (WHERE state = 'dead')`.as('dead'),
    ])
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirstOrThrow();
  return { pending: Number(row.pending), dead: Number(row.dead) };
}

/**
 * Removes a disabled endpoint, its delivery rows and attempts with it (ON DELETE CASCADE).
 * 'enabled' (nothing removed) while it is enabled: a running relay would be sending from it.
 */
export async function removeEndpoint(
  db: Db,
  name: string,
): Promise<'removed' | 'enabled' | 'missing'> {
  const removed = await db
    .deleteFrom('feed_endpoints')
    .where('name', '=', name)
    .where('enabled', '=', false)
    .executeTakeFirst();
  if (removed.numDeletedRows > 0n) return 'removed';
  return (await findEndpoint(db, name)) ? 'enabled' : 'missing';
}

/** Adds `secret` as the newest; 'full' (nothing added) when it already holds two. */
export async function addSecret(
  db: Db,
  name: string,
  secret: string,
): Promise<'added' | 'full' | 'missing'> {
  const result = await db
    .updateTable('feed_endpoints')
    .set({ secrets: sql`array_append(secrets, ${secret}::text)`, updated_at: sql`now()` })
    .where('name', '=', name)
    .where(sql<boolean>`cardinality(secrets) < 2`)
    .executeTakeFirst();
  if (result.numUpdatedRows > 0n) return 'added';
  return (await findEndpoint(db, name)) ? 'full' : 'missing';
}

/** Drops the oldest secret; 'last' (nothing dropped) when it holds only one (or none). */
export async function retireOldestSecret(
  db: Db,
  name: string,
): Promise<'retired' | 'last' | 'missing'> {
  const result = await db
    .updateTable('feed_endpoints')
    .set({ secrets: sql`secrets[2:]`, updated_at: sql`now()` })
    .where('name', '=', name)
    .where(sql<boolean>`cardinality(secrets) > 1`)
    .executeTakeFirst();
  if (result.numUpdatedRows > 0n) return 'retired';
  return (await findEndpoint(db, name)) ? 'last' : 'missing';
}
