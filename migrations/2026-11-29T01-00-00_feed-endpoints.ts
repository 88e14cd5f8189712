import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code, so it means the same thing forever.
//
// The feed as a delivery platform (docs/feed.md): endpoints as data, each with its own filter,
// secrets, limits, position and dead letters; one row per event an endpoint's filter selects
// (its delivery state); and a log of every attempt.
//
// The relay's state on feed_events (relay_state and the rest) was the state of the one endpoint
// FEED_HTTP_URL declared. It moves to that endpoint's rows here: the endpoint `configured`
// (declared by configuration: its URL, secrets and limits stay in the environment) gets a row
// for every event the old relay had attempted, sent or dead-lettered; events it never tried
// are fanned out to it by the new relay (from the first of them), as the old one would have
// sent them.
//
// A rolling upgrade: instances still running the code from before this migration would go on
// sending from feed_events while the new ones send from feed_endpoint_events, the same event
// twice. So the old relay is paused here (feed_relay_control, read by its claim statement), and
// the endpoint starts paused exactly when the old relay was. feed_events' relay columns stay
// (an old instance's statements still name them) until a later migration drops them.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE feed_endpoints (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      name text NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
      kind text NOT NULL CHECK (kind IN ('http', 'nats', 'rabbitmq')),
      -- http: the URL POSTed to; nats / rabbitmq: the server's URL, without credentials.
      -- Null only for the endpoint declared by configuration (FEED_HTTP_URL holds it).
      target text,
      -- Broker settings: nats {subject, stream?}; rabbitmq {exchange}.
      options jsonb NOT NULL DEFAULT '{}',
      -- Exact types ('payment.received'), prefixes ('payment.*') or '*' for every event.
      types text[] NOT NULL CHECK (cardinality(types) > 0),
      -- Standard Webhooks secrets (whsec_...), the newest last: every message is signed with
      -- each, so a consumer moves to the new one while the old still verifies.
      secrets text[] NOT NULL DEFAULT '{}',
      -- A broker's password or token: never printed, never logged.
      credentials text,
      rate_per_second integer CHECK (rate_per_second > 0),
      timeout_ms integer NOT NULL DEFAULT 10000 CHECK (timeout_ms BETWEEN 100 AND 120000),
      concurrency integer NOT NULL DEFAULT 8 CHECK (concurrency BETWEEN 1 AND 1000),
      max_age_ms bigint NOT NULL DEFAULT 259200000 CHECK (max_age_ms >= 1000),
      enabled boolean NOT NULL DEFAULT true,
      paused boolean NOT NULL DEFAULT false,
      paused_reason text,
      -- The fan-out's cursor: every event up to this position has been considered for this
      -- endpoint (a row made where the filter selects it). Positions become visible in order,
      -- so a cursor never passes an event it has not seen.
      fanned_through bigint NOT NULL DEFAULT 0 CHECK (fanned_through >= 0),
      declared_by text NOT NULL DEFAULT 'operator' CHECK (declared_by IN ('operator', 'configuration')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT feed_endpoints_target CHECK (target IS NOT NULL OR declared_by = 'configuration')
    )
  `.execute(db);

  await sql`
    CREATE TABLE feed_endpoint_events (
      endpoint_id bigint NOT NULL REFERENCES feed_endpoints (id) ON DELETE CASCADE,
      position bigint NOT NULL,
      event_id bigint NOT NULL,
      type text NOT NULL,
      event_name text NOT NULL,
      business_key text NOT NULL,
      state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'dead')),
      attempts integer NOT NULL DEFAULT 0,
      first_attempt_at timestamptz,
      next_attempt_at timestamptz,
      claimed_by text,
      claimed_until timestamptz,
      last_error text,
      sent_at timestamptz,
      dead_at timestamptz,
      -- How many times an operator handed this event to this endpoint again (feed replay).
      replays integer NOT NULL DEFAULT 0,
      PRIMARY KEY (endpoint_id, position)
    )
  `.execute(db);
  // The relay finds an endpoint's due events, and the earlier unsent event of a key (order per
  // business key); the gauges count dead letters and the backlog. Sent rows (nearly all) are in
  // none of the partial indexes.
  await sql`
    CREATE INDEX feed_endpoint_events_due ON feed_endpoint_events (endpoint_id, position)
    WHERE state = 'pending'
  `.execute(db);
  await sql`
    CREATE INDEX feed_endpoint_events_unsent ON feed_endpoint_events
      (endpoint_id, event_name, business_key, position)
    WHERE state <> 'sent'
  `.execute(db);
  await sql`
    CREATE INDEX feed_endpoint_events_dead ON feed_endpoint_events (endpoint_id, position)
    WHERE state = 'dead'
  `.execute(db);
  // `feed show <event>` and the prune (by event) find an event's rows.
  await sql`CREATE INDEX feed_endpoint_events_event ON feed_endpoint_events (event_id)`.execute(db);

  await sql`
    CREATE TABLE feed_attempts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      endpoint_id bigint NOT NULL REFERENCES feed_endpoints (id) ON DELETE CASCADE,
      event_id bigint NOT NULL,
      position bigint NOT NULL,
      attempt integer NOT NULL,
      started_at timestamptz NOT NULL,
      duration_ms integer NOT NULL,
      outcome text NOT NULL CHECK (outcome IN ('sent', 'failed')),
      -- The HTTP status, when there was one.
      status integer,
      -- The first bytes of the answer (HTTP) or the broker's acknowledgement, as text.
      response_excerpt text,
      error text,
      instance text NOT NULL
    )
  `.execute(db);
  await sql`CREATE INDEX feed_attempts_endpoint_time ON feed_attempts (endpoint_id, started_at)`.execute(
    db,
  );
  await sql`CREATE INDEX feed_attempts_event ON feed_attempts (event_id)`.execute(db);
  await sql`CREATE INDEX feed_attempts_started_at ON feed_attempts (started_at)`.execute(db);

  // The endpoint FEED_HTTP_URL declares, with the old relay's state.
  await sql`
    INSERT INTO feed_endpoints (name, kind, target, types, declared_by, paused, paused_reason)
    SELECT 'configured', 'http', NULL, '{*}', 'configuration', c.paused, c.reason
    FROM feed_relay_control c
  `.execute(db);
  await sql`
    INSERT INTO feed_endpoint_events (endpoint_id, position, event_id, type, event_name,
      business_key, state, attempts, first_attempt_at, next_attempt_at, last_error, sent_at,
      dead_at)
    SELECT (SELECT id FROM feed_endpoints WHERE name = 'configured'), e.position, e.id, e.type,
      e.event_name, e.business_key, e.relay_state, e.attempts, e.first_attempt_at,
      e.next_attempt_at, e.last_error, e.sent_at, e.dead_at
    FROM feed_events e
    WHERE e.position IS NOT NULL AND (e.relay_state <> 'pending' OR e.attempts > 0)
  `.execute(db);
  // Below the first event the old relay never tried, every event has its row now: the fan-out
  // starts there rather than reading years of sent events again.
  await sql`
    UPDATE feed_endpoints SET fanned_through = coalesce(
      (SELECT min(position) - 1 FROM feed_events
       WHERE position IS NOT NULL AND relay_state = 'pending' AND attempts = 0),
      (SELECT max(position) FROM feed_events), 0)
    WHERE name = 'configured'
  `.execute(db);
  // The raw prune asks, per delivery, whether each of its feed events was handed on to every
  // endpoint (src/receiver/storage/prune-steps.ts): its events are found by Webhookid here, as
  // feed_events_unsent_delivery (relay_state, which only a release before this one writes) did.
  await sql`CREATE INDEX feed_events_delivery ON feed_events (webhook_id)`.execute(db);
  // Retention (docs/retention.md): a feed event goes once every endpoint has it. Replaces the
  // function of 2026-11-28T02-00-00 (same signature, so a release before this one calls the new
  // rules too): an event goes, as a prefix of the feed from `after`, only if it was created
  // before both `cutoff` and one day ago, every endpoint's cursor is at or above it (an
  // endpoint that has not considered it yet, or a disabled one whose cursor stays, holds it
  // back), and each of its delivery rows was sent before both; its rows go with it. The rows
  // are deleted first and the event only if all of its rows went, so a row changed meanwhile
  // (a replay, a redrive) keeps its event.
  await sql`
    CREATE OR REPLACE FUNCTION prune_sent_feed_events(after bigint, cutoff timestamptz,
      batch_limit int)
    RETURNS TABLE (n int, last text)
    LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp
    AS $$
      WITH bound AS (
        SELECT least($2, now() - interval '1 day') AS before,
          coalesce((SELECT min(fanned_through) FROM feed_endpoints), 0) AS cursor
      ),
      head AS (
        SELECT e.id, e.position,
          (SELECT count(*) FROM feed_endpoint_events r WHERE r.event_id = e.id) AS rows,
          (e.created_at < b.before AND e.position <= b.cursor
            AND NOT EXISTS (SELECT 1 FROM feed_endpoint_events r WHERE r.event_id = e.id
              AND NOT coalesce(r.state = 'sent' AND r.sent_at < b.before, false))) AS old
        FROM feed_events e, bound b
        WHERE e.position > $1
        ORDER BY e.position
        LIMIT $3
      ),
      stop AS (SELECT min(position) AS position FROM head WHERE NOT old),
      going AS (
        SELECT * FROM head
        WHERE old AND position < coalesce((SELECT position FROM stop), 9223372036854775807)
      ),
      rows_gone AS (
        DELETE FROM feed_endpoint_events r USING going, bound b
        WHERE r.event_id = going.id AND r.state = 'sent' AND r.sent_at < b.before
        RETURNING r.event_id
      ),
      gone AS (
        DELETE FROM feed_events e USING going
        WHERE e.id = going.id
          AND going.rows = (SELECT count(*) FROM rows_gone g WHERE g.event_id = going.id)
        RETURNING e.position
      )
      SELECT count(*)::int, max(position)::text FROM gone
    $$
  `.execute(db);
  await sql`
    UPDATE feed_relay_control SET paused = true, changed_at = now(),
      reason = 'superseded by feed endpoints (migration 2026-11-29T01-00-00)'
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE feed_relay_control c SET paused = e.paused, reason = e.paused_reason, changed_at = now()
    FROM feed_endpoints e WHERE e.name = 'configured'
  `.execute(db);
  // The function as 2026-11-28T02-00-00 made it (the old relay's state on feed_events).
  await sql`
    CREATE OR REPLACE FUNCTION prune_sent_feed_events(after bigint, cutoff timestamptz,
      batch_limit int)
    RETURNS TABLE (n int, last text)
    LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp
    AS $$
      WITH head AS (
        SELECT id, position,
          coalesce(relay_state = 'sent'
            AND sent_at < least($2, now() - interval '1 day'), false) AS old
        FROM feed_events
        WHERE position > $1
        ORDER BY position
        LIMIT $3
      ),
      stop AS (SELECT min(position) AS position FROM head WHERE NOT old),
      gone AS (
        DELETE FROM feed_events e USING head
        WHERE e.id = head.id AND head.old AND e.relay_state = 'sent'
          AND e.sent_at < least($2, now() - interval '1 day')
          AND head.position < coalesce((SELECT position FROM stop), 9223372036854775807)
        RETURNING e.position
      )
      SELECT count(*)::int, max(position)::text FROM gone
    $$
  `.execute(db);
  await sql`DROP INDEX feed_events_delivery`.execute(db);
  await sql`DROP TABLE feed_attempts`.execute(db);
  await sql`DROP TABLE feed_endpoint_events`.execute(db);
  await sql`DROP TABLE feed_endpoints`.execute(db);
}
