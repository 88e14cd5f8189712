import { sql } from 'kysely';
import type { Db } from '../../lib/database/database.ts';

/** One endpoint's numbers, as its gauges show them. */
export interface EndpointStats {
  name: string;
  enabled: boolean;
  paused: boolean;
  /** Its events not yet sent (not dead), counted up to STATS_COUNT_CAP. */
  pending: number;
  /** Age of its oldest event not yet sent (not dead), 0 when none. */
  oldestPendingSeconds: number;
  dead: number;
  /**
   * Events not yet delivered: its pending rows plus the events past its fan-out cursor (every
   * position after `fanned_through`, whatever the filter: the filter is applied as they are
   * fanned out, so this is an upper bound while the fan-out catches up, exact otherwise).
   */
  lagEvents: number;
}

/**
 * Counts stop here: a gauge at the cap says "at least this many", which is all an alert needs,
 * and keeps each refresh bounded whatever the backlog. Every count reads a partial index of
 * feed_endpoint_events (due, dead), the oldest pending one the due index's first entry, and the
 * last position the position index's end: the cost follows the backlog, never the rows kept.
 */
const STATS_COUNT_CAP = 100_000;

/**
 * The statement behind `readEndpointStats`, built from constants only (the plan tests read it).
 * `configured`: FEED_HTTP_URL is set here, so its endpoint is reported (elsewhere nothing
 * delivers to it, and its lag would count the whole feed).
 */
export function endpointStatsSql(options: { configured: boolean }): string {
  const capped = (state: string) =>
    `(SELECT count(*) FROM (SELECT 1 FROM feed_endpoint_events x
       WHERE x.endpoint_id = p.id AND x.state = '${state}' LIMIT ${STATS_COUNT_CAP}) AS c)`;
  return `SELECT p.name, p.enabled, p.paused, s.pending, s.dead, s.oldest,
       s.pending + greatest(coalesce((SELECT position FROM feed_events
         WHERE position IS NOT NULL ORDER BY position DESC LIMIT 1), 0) - p.fanned_through, 0) AS lag
     FROM feed_endpoints p
     CROSS JOIN LATERAL (SELECT ${capped('pending')} AS pending, ${capped('dead')} AS dead,
       (SELECT coalesce(extract(epoch FROM now() - f.created_at), 0)
         FROM feed_endpoint_events x JOIN feed_events f ON f.id = x.event_id
         WHERE x.endpoint_id = p.id AND x.state = 'pending'
         ORDER BY x.position LIMIT 1) AS oldest) AS s
     WHERE ${options.configured ? 'true' : "p.declared_by = 'operator'"}
     ORDER BY p.name`;
}

/** Every endpoint's numbers (see `endpointStatsSql` for which). */
export async function readEndpointStats(
  db: Db,
  options: { configured: boolean },
): Promise<EndpointStats[]> {
  const result = await sql
    .raw<Record<string, string | number | boolean | null>>(endpointStatsSql(options))
    .execute(db);
  return result.rows.map((row) => ({
    name: String(row.name),
    enabled: row.enabled === true,
    paused: row.paused === true,
    pending: Number(row.pending ?? 0),
    oldestPendingSeconds: Number(row.oldest ?? 0),
    dead: Number(row.dead ?? 0),
    lagEvents: Number(row.lag ?? 0),
  }));
}
