import { sql } from 'kysely';
import type { Db } from '../lib/database/database.ts';
import type { EndpointKind } from './tables.ts';

/** The feed's numbers, for `feed status` and the gauges (docs/feed.md, "Operating it"). */
export interface FeedStats {
  /** Committed events without a position yet. */
  unassigned: number;
  lastPosition: string;
  /** Every endpoint, by name (empty when read with `relay: false`). */
  endpoints: EndpointStats[];
}

/** Where one endpoint stands. */
export interface EndpointStats {
  name: string;
  kind: EndpointKind;
  enabled: boolean;
  paused: boolean;
  pausedReason: string | null;
  /** Its fan-out cursor: events above it have no row for it yet (nor hold back the prune). */
  fannedThrough: string;
  /** Positions numbered above its cursor: events its fan-out has not considered yet. */
  notFannedOut: number;
  /** Its events not yet sent (not dead), counted up to STATS_COUNT_CAP. */
  pending: number;
  /** Age of its oldest event not yet sent (not dead) or not yet fanned out; 0 when none. */
  oldestPendingSeconds: number;
  dead: number;
  /** Its pending events held back by a dead letter earlier in their key. */
  blocked: number;
}

/**
 * Counts stop here: a gauge at the cap says "at least this many", which is all an alert needs,
 * and keeps each refresh bounded whatever the backlog (an endpoint added at position 0 over
 * years of history, say). Every count below reads a partial index of feed_endpoint_events (due,
 * dead, unsent: sent rows are in none of them) or an end of feed_events' position index, so its
 * cost follows the backlog, never the rows kept.
 */
const STATS_COUNT_CAP = 100_000;

/**
 * The feed's numbers. `relay: false` (no relay runs in this process) reads only what does not
 * depend on one: the endpoints' rows are the relay's business.
 */
export async function readFeedStats(
  db: Db,
  options: { relay: boolean } = { relay: true },
): Promise<FeedStats> {
  // Built from constants only (no parameters): the text the plan tests read.
  const head = await sql
    .raw<{ unassigned: string; last: string | null }>(feedStatsSql())
    .execute(db);
  const row = head.rows[0];
  const endpoints = options.relay
    ? (await sql.raw<EndpointStatsRow>(endpointStatsSql()).execute(db)).rows
    : [];
  return {
    unassigned: Number(row?.unassigned ?? 0),
    lastPosition: row?.last ?? '0',
    endpoints: endpoints.map((e) => ({
      name: e.name,
      kind: e.kind,
      enabled: e.enabled,
      paused: e.paused,
      pausedReason: e.paused_reason,
      fannedThrough: e.fanned_through,
      notFannedOut: Number(e.not_fanned_out),
      pending: Number(e.pending),
      oldestPendingSeconds: Number(e.oldest),
      dead: Number(e.dead),
      blocked: Number(e.blocked),
    })),
  };
}

interface EndpointStatsRow {
  name: string;
  kind: EndpointKind;
  enabled: boolean;
  paused: boolean;
  paused_reason: string | null;
  fanned_through: string;
  not_fanned_out: string;
  pending: string;
  oldest: string;
  dead: string;
  blocked: string;
}

const capped = (from: string) =>
  `(SELECT count(*) FROM (SELECT 1 FROM ${from} LIMIT ${STATS_COUNT_CAP}) AS c)`;

/** The feed-wide part of `readFeedStats` (exported for the plan tests). */
export function feedStatsSql(): string {
  return `SELECT ${capped('feed_events WHERE position IS NULL')} AS unassigned,
       (SELECT position FROM feed_events WHERE position IS NOT NULL
         ORDER BY position DESC LIMIT 1)::text AS last`;
}

/**
 * The per-endpoint part (exported for the plan tests): one row per endpoint, each number read
 * from that endpoint's slice of a partial index. The oldest age is the older of its first pending
 * row's event and the first event beyond its cursor (a fan-out that stalled, or an endpoint
 * disabled, ages too).
 */
export function endpointStatsSql(): string {
  return `SELECT ep.name, ep.kind, ep.enabled, ep.paused, ep.paused_reason,
       ep.fanned_through::text AS fanned_through,
       greatest(coalesce((SELECT position FROM feed_events WHERE position IS NOT NULL
         ORDER BY position DESC LIMIT 1), 0) - ep.fanned_through, 0) AS not_fanned_out,
       ${capped("feed_endpoint_events r WHERE r.endpoint_id = ep.id AND r.state = 'pending'")} AS pending,
       greatest(
         (SELECT extract(epoch FROM now() - e.created_at) FROM feed_endpoint_events r
           JOIN feed_events e ON e.id = r.event_id
           WHERE r.endpoint_id = ep.id AND r.state = 'pending' ORDER BY r.position LIMIT 1),
         (SELECT extract(epoch FROM now() - e.created_at) FROM feed_events e
           WHERE e.position > ep.fanned_through ORDER BY e.position LIMIT 1),
         0) AS oldest,
       ${capped("feed_endpoint_events r WHERE r.endpoint_id = ep.id AND r.state = 'dead'")} AS dead,
       (SELECT count(*) FROM (SELECT 1 FROM
         (SELECT DISTINCT ON (event_name, business_key) event_name, business_key, position
           FROM feed_endpoint_events WHERE endpoint_id = ep.id AND state = 'dead'
           ORDER BY event_name, business_key, position) AS d
         JOIN LATERAL (SELECT 1 FROM feed_endpoint_events o
           WHERE o.endpoint_id = ep.id AND o.state = 'pending'
             AND o.event_name = d.event_name AND o.business_key = d.business_key
             AND o.position > d.position
           LIMIT ${STATS_COUNT_CAP}) AS held ON true
         LIMIT ${STATS_COUNT_CAP}) AS b) AS blocked
     FROM feed_endpoints ep
     ORDER BY ep.name`;
}
