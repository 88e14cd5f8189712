import type { ColumnType, Generated } from 'kysely';

/**
 * The feed's tables as Kysely sees them, matching migrations/, added to src/lib's `Database`
 * by declaration merging (src/lib knows no module). The receiver writes `feed_events` rows in
 * its store statement (its outbox, src/receiver/storage/feed-outbox-sql.ts); everything else
 * about them is the feed's.
 */

/** Where an event stands with the relay (docs/feed.md, "Push: the relay"). */
type RelayState = 'pending' | 'sent' | 'dead';

/** The feed's outbox (migrations 2026-11-22T03-00-00, 2026-11-24T08-00-00): one row per event. */
interface FeedEventsTable {
  id: Generated<string>;
  /** Null until the assigner numbers it, after its commit. */
  position: string | null;
  type: string;
  event_name: string;
  business_key: string;
  webhook_id: string | null;
  conflict_id: string | null;
  quarantine_id: string | null;
  created_at: Generated<Date>;
  relay_state: RelayState;
  attempts: number;
  first_attempt_at: Date | null;
  next_attempt_at: Date | null;
  claimed_by: string | null;
  claimed_until: Date | null;
  last_error: string | null;
  sent_at: Date | null;
  dead_at: Date | null;
}

/** One row: whether every instance's relay is paused. */
interface FeedRelayControlTable {
  /** Always true: the key that keeps the table to one row (never written). */
  id: ColumnType<boolean, never, never>;
  paused: boolean;
  changed_at: Date;
  reason: string | null;
}

/** Where an event stands with one endpoint (feed_endpoint_events.state). */
type DeliveryState = 'pending' | 'sent' | 'dead';

/** What an endpoint is: a URL to POST to, or a broker to publish into. */
export type EndpointKind = 'http' | 'nats' | 'rabbitmq';

/** Endpoints as data (migration 2026-11-29T01-00-00): managed by `npm run feed -- endpoints`. */
interface FeedEndpointsTable {
  id: Generated<string>;
  name: string;
  kind: EndpointKind;
  /** http: the URL; a broker: its server URL without credentials; null: FEED_HTTP_URL's. */
  target: string | null;
  options: ColumnType<Record<string, unknown>, string | undefined, string>;
  /** Exact types, prefixes (`payment.*`) or `*`. */
  types: string[];
  /** whsec_ secrets, newest last. */
  secrets: ColumnType<string[], string[] | undefined, string[]>;
  credentials: string | null;
  rate_per_second: number | null;
  timeout_ms: ColumnType<number, number | undefined, number>;
  concurrency: ColumnType<number, number | undefined, number>;
  max_age_ms: ColumnType<string, number | string | undefined, number | string>;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  paused: ColumnType<boolean, boolean | undefined, boolean>;
  paused_reason: string | null;
  fanned_through: ColumnType<string, number | string | undefined, number | string>;
  declared_by: ColumnType<'operator' | 'configuration', undefined, never>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** One row per event an endpoint's filter selected: its delivery state there. */
interface FeedEndpointEventsTable {
  endpoint_id: string;
  position: string;
  event_id: string;
  type: string;
  event_name: string;
  business_key: string;
  state: ColumnType<DeliveryState, DeliveryState | undefined, DeliveryState>;
  attempts: ColumnType<number, number | undefined, number>;
  first_attempt_at: Date | null;
  next_attempt_at: Date | null;
  claimed_by: string | null;
  claimed_until: Date | null;
  last_error: string | null;
  sent_at: Date | null;
  dead_at: Date | null;
  replays: ColumnType<number, number | undefined, number>;
}

/** Every attempt of every event to every endpoint, kept for RETENTION's attempt days. */
interface FeedAttemptsTable {
  id: Generated<string>;
  endpoint_id: string;
  event_id: string;
  position: string;
  attempt: number;
  started_at: Date;
  duration_ms: number;
  outcome: 'sent' | 'failed';
  status: number | null;
  response_excerpt: string | null;
  error: string | null;
  instance: string;
}

declare module '../lib/database/database.ts' {
  interface Database {
    feed_events: FeedEventsTable;
    feed_relay_control: FeedRelayControlTable;
    feed_endpoints: FeedEndpointsTable;
    feed_endpoint_events: FeedEndpointEventsTable;
    feed_attempts: FeedAttemptsTable;
  }
}
