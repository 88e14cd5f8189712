import { sql } from 'kysely';
import type { Db } from '../../lib/database/database.ts';
import type { FeedEventType } from '../../receiver/contract.ts';
import type { SinkOutcome } from '../sinks/sink.ts';

/**
 * An endpoint's delivery state (feed_endpoint_events; docs/feed.md, "Endpoints"): claiming its
 * due events, and recording each attempt's outcome together with its feed_attempts row.
 */

/** A claimed event: its outbox row as the renderer reads it (bigints and instants as text). */
export interface ClaimedEvent {
  /** feed_events.id: the message id is `evt_<id>`. */
  id: string;
  position: string;
  type: FeedEventType;
  event_name: string;
  business_key: string;
  webhook_id: string | null;
  conflict_id: string | null;
  quarantine_id: string | null;
  created_at: string;
  /** This attempt's number (1 for the first): with `claimed_by`, the claim's token. */
  attempts: number;
}

/**
 * Claims up to `limit` due events of one endpoint for `instance` in one statement: pending, not
 * waiting for a retry, not claimed (or the claim's lease has run out: its instance died), the
 * endpoint enabled and not paused, and no earlier event of the same key unsent to this endpoint
 * (order per business key, per endpoint: another endpoint's dead letter holds nothing here).
 * `FOR UPDATE SKIP LOCKED` lets every instance claim at once without taking the same event.
 */
export async function claimEvents(
  db: Db,
  options: { endpointId: string; instance: string; limit: number; leaseMs: number },
): Promise<ClaimedEvent[]> {
  const result = await sql<ClaimedEvent>`
    WITH due AS (
       SELECT o.position FROM feed_endpoint_events o
       WHERE o.endpoint_id = ${options.endpointId} AND o.state = 'pending'
         AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= now())
         AND (o.claimed_until IS NULL OR o.claimed_until < now())
         AND EXISTS (SELECT 1 FROM feed_endpoints p
           WHERE p.id = o.endpoint_id AND p.enabled AND NOT p.paused)
         AND NOT EXISTS (
           SELECT 1 FROM feed_endpoint_events earlier
           WHERE earlier.endpoint_id = o.endpoint_id AND earlier.event_name = o.event_name
             AND earlier.business_key = o.business_key AND earlier.state <> 'sent'
             AND earlier.position < o.position)
       ORDER BY o.position
       LIMIT ${options.limit}
       FOR UPDATE OF o SKIP LOCKED
     ),
     claimed AS (
       UPDATE feed_endpoint_events e SET claimed_by = ${options.instance},
         claimed_until = now() + ${options.leaseMs} * interval '1 millisecond',
         attempts = e.attempts + 1, first_attempt_at = coalesce(e.first_attempt_at, now())
       FROM due WHERE e.endpoint_id = ${options.endpointId} AND e.position = due.position
       RETURNING e.event_id, e.position, e.attempts
     )
     SELECT f.id, c.position, f.type, f.event_name, f.business_key, f.webhook_id,
       f.conflict_id, f.quarantine_id, f.created_at::text AS created_at, c.attempts
     FROM claimed c JOIN feed_events f ON f.id = c.event_id
     ORDER BY c.position
  `.execute(db);
  return result.rows;
}

/** One attempt as the log keeps it: when it began, how long it took, and what it came to. */
export interface Attempt {
  endpointId: string;
  event: ClaimedEvent;
  instance: string;
  startedAt: Date;
  durationMs: number;
  outcome: SinkOutcome;
}

/** Longest error and excerpt kept (the sink bounds the excerpt already; this is the backstop). */
const TEXT_LIMIT = 500;

/** The feed_attempts row of `attempt`, as a SELECT list the outcome's statement inserts. */
function attemptRow(attempt: Attempt) {
  const { outcome, event } = attempt;
  const error = outcome.ok ? null : outcome.error.slice(0, TEXT_LIMIT);
  return sql`SELECT ${attempt.endpointId}::bigint, ${event.id}::bigint, ${event.position}::bigint,
    ${event.attempts}::int, ${attempt.startedAt}::timestamptz, ${Math.round(attempt.durationMs)}::int,
    ${outcome.ok ? 'sent' : 'failed'}, ${outcome.status ?? null}::int,
    ${outcome.excerpt?.slice(0, TEXT_LIMIT) ?? null}::text, ${error}::text, ${attempt.instance}`;
}

const ATTEMPT_COLUMNS = sql`(endpoint_id, event_id, position, attempt, started_at, duration_ms,
  outcome, status, response_excerpt, error, instance)`;

/**
 * The sink took the event: sent, and the attempt logged, in one statement. Only the claimant of
 * this attempt may finish it (false when its lease ran out and another instance has it now);
 * the attempt is logged either way, since it happened.
 */
export async function markSent(db: Db, attempt: Attempt): Promise<boolean> {
  const { event } = attempt;
  const result = await sql<{ done: number }>`
    WITH done AS (
      UPDATE feed_endpoint_events SET state = 'sent', sent_at = now(), claimed_by = NULL,
        claimed_until = NULL, last_error = NULL
      WHERE endpoint_id = ${attempt.endpointId} AND position = ${event.position}
        AND claimed_by = ${attempt.instance} AND attempts = ${event.attempts} AND state = 'pending'
      RETURNING 1
    ),
    logged AS (INSERT INTO feed_attempts ${ATTEMPT_COLUMNS} ${attemptRow(attempt)})
    SELECT count(*)::int AS done FROM done
  `.execute(db);
  return result.rows[0]?.done === 1;
}

/**
 * The attempt failed: retry after `retryInMs` (never later than the end of the event's age),
 * or, once `maxAgeMs` has passed since its first attempt, dead-letter it; the attempt logged in
 * the same statement. Returns the outcome, or undefined when this instance no longer held the
 * claim.
 */
export async function markFailed(
  db: Db,
  attempt: Attempt & { retryInMs: number; maxAgeMs: number },
): Promise<'retry' | 'dead' | undefined> {
  const { event, outcome } = attempt;
  const error = outcome.ok ? '' : outcome.error.slice(0, TEXT_LIMIT);
  const ageEnds = sql`first_attempt_at + ${attempt.maxAgeMs} * interval '1 millisecond'`;
  const result = await sql<{ state: 'pending' | 'dead' }>`
    WITH done AS (
      UPDATE feed_endpoint_events SET
        state = CASE WHEN now() >= ${ageEnds} THEN 'dead' ELSE 'pending' END,
        dead_at = CASE WHEN now() >= ${ageEnds} THEN now() END,
        next_attempt_at = least(now() + ${attempt.retryInMs} * interval '1 millisecond', ${ageEnds}),
        claimed_by = NULL, claimed_until = NULL, last_error = ${error}
      WHERE endpoint_id = ${attempt.endpointId} AND position = ${event.position}
        AND claimed_by = ${attempt.instance} AND attempts = ${event.attempts} AND state = 'pending'
      RETURNING state
    ),
    logged AS (INSERT INTO feed_attempts ${ATTEMPT_COLUMNS} ${attemptRow(attempt)})
    SELECT state FROM done
  `.execute(db);
  const state = result.rows[0]?.state;
  return state === undefined ? undefined : state === 'dead' ? 'dead' : 'retry';
}
