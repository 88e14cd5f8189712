import { sql, type RawBuilder } from 'kysely';
import { TYPED_TABLES, type TypedFeedEventType } from '../events/event-types.ts';

/**
 * Where feed events are written, the one home of `INSERT INTO feed_events` (insertFeedEvents).
 * The outbox half of the store statement (docs/feed.md): one more CTE that turns the RETURNING
 * sets of the delivery, typed-row and conflict inserts into `feed_events` rows. Because it
 * reads only what this statement inserted, an event exists exactly when its row does (same
 * commit), and a duplicate (an insert that returned nothing) adds nothing. Positions are left
 * NULL: the feed's assigner numbers them after commit, in commit order.
 */

/** The feed's events of no typed table. */
type OtherEventType = (typeof OTHER_EVENT_TYPES)[number];
const OTHER_EVENT_TYPES = [
  'conflict.detected',
  'event.unmodelled',
  // Written beside the quarantine row (quarantine-repository.ts) and when an operator handles it.
  'quarantine.opened',
  'quarantine.resolved',
] as const;

/**
 * The business events the feed hands on: one per typed table of the registry
 * (events/event-types.ts), then those of no typed table.
 */
export type FeedEventType = TypedFeedEventType | OtherEventType;

/** Every feed event type, as a list: what an endpoint's filter and the catalogue may name. */
export const FEED_EVENT_TYPES: readonly FeedEventType[] = Object.freeze([
  ...new Set(TYPED_TABLES.map((entry) => entry.feedType)),
  ...OTHER_EVENT_TYPES,
]);

/** Where one type's events come from: a CTE of the statement and SQL expressions over it. */
export interface OutboxSource {
  type: FeedEventType;
  /** The CTE whose RETURNING rows are this type's events. */
  from: string;
  eventName: string;
  businessKey: string;
  webhookId: string;
  conflictId?: string;
  where?: string;
}

/**
 * The one `INSERT INTO feed_events`: every writer of the feed's events goes through here (the
 * store statement's outbox below, a quarantine row's and an operator's handling of it,
 * `quarantineEvent`), each inside the statement that writes what the event is about, so the
 * event exists exactly when its row does. `link` names the row an event is about besides its
 * delivery; `select` yields type, event_name, business_key, webhook_id and that link.
 */
function insertFeedEvents(link: 'conflict_id' | 'quarantine_id', select: string): string {
  return `INSERT INTO feed_events (type, event_name, business_key, webhook_id, ${link})
      ${select}`;
}

/**
 * `feed_outbox AS (INSERT INTO feed_events …)`. Sources are taken in the order given (a key's
 * row before its conflict), so ids, and so positions within one commit, follow that order.
 */
export function feedOutboxCte(sources: readonly OutboxSource[]): RawBuilder<unknown> {
  const selects = sources.map(
    (s, index) =>
      `SELECT ${index} AS source, '${s.type}' AS type, ${s.eventName} AS event_name, ` +
      `(${s.businessKey})::text AS business_key, ${s.webhookId} AS webhook_id, ` +
      `${s.conflictId ?? 'NULL'}::bigint AS conflict_id FROM ${s.from}` +
      (s.where ? ` WHERE ${s.where}` : ''),
  );
  const insert = insertFeedEvents(
    'conflict_id',
    `SELECT type, event_name, business_key, webhook_id, conflict_id
      FROM (${selects.join(' UNION ALL ')}) AS e
      ORDER BY source, webhook_id, business_key`,
  );
  return sql.raw(`feed_outbox AS (
      ${insert}
    )`);
}

/**
 * The feed event of each quarantine row `from` returns (a CTE's `RETURNING id, event_name,
 * webhook_id`): `quarantine.opened` beside a new row (quarantine-repository.ts),
 * `quarantine.resolved` when an operator handles one (src/operations).
 */
export function quarantineEvent(
  type: Extract<FeedEventType, `quarantine.${string}`>,
  from: string,
): RawBuilder<unknown> {
  return sql.raw(
    insertFeedEvents(
      'quarantine_id',
      `SELECT '${type}', event_name, id::text, webhook_id, id FROM ${from}`,
    ),
  );
}
