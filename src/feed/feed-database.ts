import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database, Db } from '../lib/database/database.ts';

/**
 * What the feed's entry points read through: the feed's Kysely. A bare pg pool is still taken
 * (callers outside src/feed/ that pass one: the feed command, some tests) and gets one Kysely of
 * its own; no statement here depends on the pool's type parsers (see render-events.ts).
 */
export type FeedDb = Db | pg.Pool;

const onPool = new WeakMap<pg.Pool, Db>();

export function feedKysely(db: FeedDb): Db {
  if (!(db instanceof pg.Pool)) return db;
  let kysely = onPool.get(db);
  if (!kysely) {
    kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: db }) });
    onPool.set(db, kysely);
  }
  return kysely;
}
