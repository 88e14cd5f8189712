import { sql } from 'kysely';
import type { Db } from '../../lib/database/database.ts';
import type { FeedEventType } from '../../receiver/contract.ts';
import type { SinkOutcome } from '../sinks/sink.ts';

/**
 * An endpoint's delivery state (feed_endpoint_events; docs/feed.md, "Endpoints"): claiming its
 * due events, and recording attempts' outcomes together with their feed_attempts rows.
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
  event: ClaimedEvent;
  startedAt: Date;
  durationMs: number;
  outcome: SinkOutcome;
  /** A failure's wait before the next attempt (ignored for a success). */
  retryInMs: number;
}

/** Where an attempt left its event: sent, to retry, dead-lettered, or not this instance's any more. */
export type Recorded = 'sent' | 'retry' | 'dead' | undefined;

/** Longest error and excerpt kept (the sink bounds the excerpt already; this is the backstop). */
const TEXT_LIMIT = 500;

/**
 * The outcomes of several attempts of one endpoint, each with its feed_attempts row, in one
 * statement (one commit for all of them, however many finished while the last write ran). A
 * success is sent; a failure is retried after its `retryInMs` (never later than the end of the
 * event's age), or, once `maxAgeMs` has passed since its first attempt, dead-lettered. Only the
 * claimant of an attempt may finish it (undefined for an attempt whose lease ran out and whose
 * event another instance holds now); every attempt is logged either way, since it happened.
 * Returns each attempt's result, in the order given.
 */
export async function recordAttempts(
  db: Db,
  options: { endpointId: string; instance: string; maxAgeMs: number; attempts: readonly Attempt[] },
): Promise<Recorded[]> {
  const { attempts } = options;
  const column = <T>(pick: (attempt: Attempt) => T) => attempts.map(pick);
  const ageEnds = sql`e.first_attempt_at + ${options.maxAgeMs} * interval '1 millisecond'`;
  const result = await sql<{
    position: string;
    attempts: number;
    state: 'sent' | 'pending' | 'dead';
  }>`
    WITH outcome AS (
      SELECT * FROM unnest(
        ${column((a) => a.event.position)}::bigint[], ${column((a) => a.event.attempts)}::int[],
        ${column((a) => a.event.id)}::bigint[], ${column((a) => a.outcome.ok)}::boolean[],
        ${column((a) => Math.round(a.retryInMs))}::bigint[],
        ${column((a) => a.startedAt.toISOString())}::timestamptz[],
        ${column((a) => Math.round(a.durationMs))}::int[],
        ${column((a) => a.outcome.status ?? null)}::int[],
        ${column((a) => a.outcome.excerpt?.slice(0, TEXT_LIMIT) ?? null)}::text[],
        ${column((a) => (a.outcome.ok ? null : a.outcome.error.slice(0, TEXT_LIMIT)))}::text[]
      ) AS o(position, attempt, event_id, ok, retry_ms, started_at, duration_ms, status, excerpt,
        error)
    ),
    done AS (
      UPDATE feed_endpoint_events e SET
        state = CASE WHEN o.ok THEN 'sent' WHEN now() >= ${ageEnds} THEN 'dead' ELSE 'pending' END,
        sent_at = CASE WHEN o.ok THEN now() ELSE e.sent_at END,
        dead_at = CASE WHEN o.ok THEN e.dead_at WHEN now() >= ${ageEnds} THEN now() END,
        next_attempt_at = CASE WHEN o.ok THEN e.next_attempt_at
          ELSE least(now() + o.retry_ms * interval '1 millisecond', ${ageEnds}) END,
        claimed_by = NULL, claimed_until = NULL,
        last_error = CASE WHEN o.ok THEN NULL ELSE coalesce(o.error, '') END
      FROM outcome o
      WHERE e.endpoint_id = ${options.endpointId} AND e.position = o.position
        AND e.claimed_by = ${options.instance} AND e.attempts = o.attempt AND e.state = 'pending'
      RETURNING e.position::text AS position, e.attempts, e.state
    ),
    logged AS (
      INSERT INTO feed_attempts (endpoint_id, event_id, position, attempt, started_at,
        duration_ms, outcome, status, response_excerpt, error, instance)
      SELECT ${options.endpointId}::bigint, o.event_id, o.position, o.attempt, o.started_at,
        o.duration_ms, CASE WHEN o.ok THEN 'sent' ELSE 'failed' END, o.status, o.excerpt, o.error,
        ${options.instance}
      FROM outcome o
    )
    SELECT position, attempts, state FROM done
  `.execute(db);
  // By position and attempt: the same event twice in a batch (a lease that ran out, claimed
  // again here) is finished only by its current attempt.
  const key = (position: string, attempt: number) => `${position}/${attempt}`;
  const states = new Map(result.rows.map((row) => [key(row.position, row.attempts), row.state]));
  return attempts.map(({ event }) => {
    const state = states.get(key(event.position, event.attempts));
    return state === undefined ? undefined : state === 'pending' ? 'retry' : state;
  });
}
