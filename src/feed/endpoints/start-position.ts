import { sql } from 'kysely';
import type { Db } from '../../lib/database/database.ts';
import { typeFilterSql } from './type-filter.ts';

/**
 * Where an endpoint starts (docs/feed.md, "Endpoints"): `feed start-after` and
 * `feed endpoints add --start` both take `now`, a position or a time, and both skip the events
 * up to it without sending them. Skipping is right for a history the consumer has (or does not
 * want), wrong for an event the endpoint has been trying to deliver (its consumer is waiting
 * for it) or one held behind a dead letter of its key (it goes out after the redrive). So the
 * plan says what would be skipped, by type, and the guard refuses unless the endpoint is
 * paused, nothing in the range was attempted and nothing is held.
 */

/**
 * `now` (the last position numbered), a position (digits, at most the last position: a cursor
 * past positions not yet numbered would skip events nobody has seen) or an ISO 8601 time (the
 * position just before the first event created at or after it, so every event from then on is
 * sent). Answers the position as a decimal string, or why the text is none of these.
 */
export async function resolveStartPosition(
  db: Db,
  text: string,
): Promise<{ position: string } | { problem: string }> {
  const last = await lastPosition(db);
  if (text === 'now') return { position: last };
  if (/^\d{1,18}$/.test(text)) {
    return BigInt(text) <= BigInt(last)
      ? { position: String(BigInt(text)) }
      : { problem: `position ${text} is beyond the last position numbered so far (${last})` };
  }
  const time = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(text)
    ? new Date(text)
    : undefined;
  if (!time || Number.isNaN(time.getTime())) {
    return { problem: `"${text}" is not a position (digits), now, or an ISO 8601 time` };
  }
  return { position: await positionBefore(db, time, last) };
}

/** The last position numbered so far (0 when none): what `now` means. */
async function lastPosition(db: Db): Promise<string> {
  const row = await db
    .selectFrom('feed_events')
    .select('position')
    .where('position', 'is not', null)
    .orderBy('position', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.position ?? '0';
}

/**
 * How far back from the first position created at or after a time an earlier position may still
 * have been created after it: positions are numbered in commit order, creation times are taken
 * at each transaction's start, so the two differ by the commits in flight at once, never by
 * thousands.
 */
const CREATION_ORDER_SLACK = 10_000n;

/**
 * The position just before the first event created at or after `time` (`last` when none was).
 * feed_events has no index on created_at: a binary search over the position index (creation
 * times follow positions) finds the boundary in a few dozen index reads, then the slack before
 * it is read for events committed out of creation order.
 */
async function positionBefore(db: Db, time: Date, last: string): Promise<string> {
  const createdAtOrAfter = async (position: bigint) => {
    const row = await db
      .selectFrom('feed_events')
      .select(sql<boolean>`created_at >= ${time}`.as('after'))
      .where('position', '>=', String(position))
      .orderBy('position')
      .limit(1)
      .executeTakeFirst();
    return row?.after ?? true;
  };
  let low = 0n; // every position up to here is taken to be created before `time`
  let high = BigInt(last) + 1n; // the first position created at or after it (last + 1: none)
  while (high - low > 1n) {
    const middle = (low + high) / 2n;
    if (await createdAtOrAfter(middle)) high = middle;
    else low = middle;
  }
  const straggler = await db
    .selectFrom('feed_events')
    .select(sql<string | null>`min(position)`.as('position'))
    .where('position', '>=', String(high > CREATION_ORDER_SLACK ? high - CREATION_ORDER_SLACK : 0n))
    .where('position', '<', String(high))
    .where(sql<boolean>`created_at >= ${time}`)
    .executeTakeFirst();
  const first = straggler?.position ? BigInt(straggler.position) : high;
  return String(first - 1n);
}

/** The endpoint a start applies to; `id: null` for one being added (it has no rows yet). */
export interface StartTarget {
  id: string | null;
  name: string;
  /** Its event-type filter: events beyond its cursor are counted only where it selects them. */
  types: readonly string[];
  /** Its fan-out cursor: events above it have no row for it yet ('0' for a new endpoint). */
  fannedThrough: string;
  /** A new endpoint sends nothing before it is added: pass true. */
  paused: boolean;
}

/** What starting `target` after `position` would skip. */
export interface StartPlan {
  endpoint: string;
  position: string;
  paused: boolean;
  /** By type: events that would be skipped, of them attempted, of them held. */
  byType: { type: string; events: number; attempted: number; held: number }[];
  /** Events that would be skipped: its pending rows up to the position, and the events its
   * filter selects between its cursor and the position (skipped by moving the cursor). */
  events: number;
  /** Of those, events the endpoint has already tried to send (or holds a claim on). */
  attempted: number;
  /** Of those, events waiting behind an earlier dead letter of their key at this endpoint. */
  held: number;
  /** Its dead letters up to the position: never skipped (they are for `redrive`). */
  dead: number;
}

/**
 * The plan, read in one statement: the endpoint's pending rows up to the position, and the
 * events its filter selects above its cursor up to the position (no row yet: never attempted,
 * held only behind one of its dead letters).
 */
export async function planStart(db: Db, target: StartTarget, position: string): Promise<StartPlan> {
  const endpointId = target.id ?? '0';
  const rows = await sql<{ type: string; events: string; attempted: string; held: string }>`
    WITH skipped AS (
      SELECT r.type, r.event_name, r.business_key, r.position,
        (r.attempts > 0 OR r.claimed_by IS NOT NULL) AS attempted
      FROM feed_endpoint_events r
      WHERE r.endpoint_id = ${endpointId}::bigint AND r.state = 'pending'
        AND r.position <= ${position}::bigint
      UNION ALL
      SELECT e.type, e.event_name, e.business_key, e.position, false
      FROM feed_events e
      WHERE e.position > ${target.fannedThrough}::bigint AND e.position <= ${position}::bigint
        AND ${typeFilterSql(target.types, sql.ref('e.type'))}
    )
    SELECT s.type, count(*) AS events, count(*) FILTER (WHERE s.attempted) AS attempted,
      count(*) FILTER (WHERE EXISTS (
        SELECT 1 FROM feed_endpoint_events d
        WHERE d.endpoint_id = ${endpointId}::bigint AND d.state = 'dead'
          AND d.event_name = s.event_name AND d.business_key = s.business_key
          AND d.position < s.position)) AS held
    FROM skipped s GROUP BY s.type ORDER BY s.type
  `.execute(db);
  const dead = await sql<{ dead: string }>`
    SELECT count(*) AS dead FROM feed_endpoint_events
    WHERE endpoint_id = ${endpointId}::bigint AND state = 'dead'
      AND position <= ${position}::bigint
  `.execute(db);
  const byType = rows.rows.map((r) => ({
    type: r.type,
    events: Number(r.events),
    attempted: Number(r.attempted),
    held: Number(r.held),
  }));
  const sum = (field: 'events' | 'attempted' | 'held') =>
    byType.reduce((total, row) => total + row[field], 0);
  return {
    endpoint: target.name,
    position,
    paused: target.paused,
    byType,
    events: sum('events'),
    attempted: sum('attempted'),
    held: sum('held'),
    dead: Number(dead.rows[0]?.dead ?? 0),
  };
}

/** The guard: why the plan may not run without --force; empty when it may. */
export function startRefusals(plan: StartPlan): string[] {
  return [
    !plan.paused &&
      `endpoint ${plan.endpoint} is not paused (npm run feed -- pause --endpoint ${plan.endpoint}, and wait for the sends in flight)`,
    plan.attempted > 0 &&
      `${plan.attempted} event(s) in the range have been attempted: the consumer is waiting for them`,
    plan.held > 0 &&
      `${plan.held} event(s) in the range are held behind a dead letter of their key (redrive it first)`,
  ].filter((reason): reason is string => typeof reason === 'string');
}

/** The plan as lines for the operator: what would be skipped, by type. */
export function describeStartPlan(plan: StartPlan): string[] {
  const lines = [
    `up to position ${plan.position}: ${plan.events} pending event(s) would be marked sent without relaying them${plan.events > 0 ? ':' : ''}`,
    ...plan.byType.map(
      (row) =>
        `  ${row.type.padEnd(28)}${String(row.events).padStart(8)}` +
        (row.attempted > 0 ? `  (${row.attempted} attempted)` : '') +
        (row.held > 0 ? `  (${row.held} behind a dead letter)` : ''),
    ),
    `endpoint ${plan.endpoint}: ${plan.paused ? 'paused' : 'running'}`,
  ];
  if (plan.dead > 0) {
    lines.push(`${plan.dead} dead letter(s) in the range are left as they are (for redrive)`);
  }
  return lines;
}
