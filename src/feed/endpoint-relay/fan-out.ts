import { sql } from 'kysely';
import type { Db } from '../../lib/database/database.ts';
import { typeFilterSql } from '../endpoints/type-filter.ts';

/** Positions read per step: one transaction's worth, however far behind the endpoint is. */
const FAN_OUT_BATCH = 5000;

interface FanOutStep {
  /** False when another instance held the endpoint's row (it is fanning out) or it is disabled. */
  locked: boolean;
  /** Positions read past the cursor (a full batch: call again). */
  scanned: number;
  /** Rows made for this endpoint (its filter selected them). */
  inserted: number;
}

/**
 * One step of an endpoint's fan-out (docs/feed.md, "Endpoints"): under its row's lock (skipped
 * when another instance holds it), the positioned events past `fanned_through` that its filter
 * selects become its pending rows, and the cursor moves to the highest position read. Positions
 * become visible in ascending order (the assigner's rule), so `position > fanned_through` never
 * skips one, and the cursor never passes an event this statement did not see. The filter is the
 * one in the locked row: a change applies from the next event on. A disabled endpoint is left
 * alone: its cursor stays, and it catches up once enabled.
 */
async function fanOut(db: Db, endpointId: string, batch = FAN_OUT_BATCH): Promise<FanOutStep> {
  return db.transaction().execute(async (trx) => {
    const endpoint = await sql<{ types: string[]; fanned_through: string }>`
      SELECT types, fanned_through FROM feed_endpoints
      WHERE id = ${endpointId} AND enabled
      FOR UPDATE SKIP LOCKED
    `.execute(trx);
    const row = endpoint.rows[0];
    if (!row) return { locked: false, scanned: 0, inserted: 0 };
    const result = await sql<{ scanned: number; inserted: number }>`
      WITH scanned AS (
        SELECT id, position, type, event_name, business_key FROM feed_events
        WHERE position > ${row.fanned_through}
        ORDER BY position
        LIMIT ${batch}
      ),
      inserted AS (
        INSERT INTO feed_endpoint_events
          (endpoint_id, position, event_id, type, event_name, business_key)
        SELECT ${endpointId}, position, id, type, event_name, business_key FROM scanned
        WHERE ${typeFilterSql(row.types, sql.ref('scanned.type'))}
        ON CONFLICT DO NOTHING
        RETURNING 1
      ),
      advanced AS (
        UPDATE feed_endpoints SET fanned_through = (SELECT max(position) FROM scanned)
        WHERE id = ${endpointId} AND EXISTS (SELECT 1 FROM scanned)
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM scanned)::int AS scanned,
        (SELECT count(*) FROM inserted)::int AS inserted,
        (SELECT count(*) FROM advanced)::int AS advanced
    `.execute(trx);
    const { scanned = 0, inserted = 0 } = result.rows[0] ?? {};
    return { locked: true, scanned, inserted };
  });
}

/** Fans out until the endpoint is level with the last visible position (or another instance is on it). */
export async function fanOutAll(
  db: Db,
  endpointId: string,
  batch = FAN_OUT_BATCH,
): Promise<number> {
  let inserted = 0;
  for (;;) {
    const step = await fanOut(db, endpointId, batch);
    inserted += step.inserted;
    if (!step.locked || step.scanned < batch) return inserted;
  }
}
