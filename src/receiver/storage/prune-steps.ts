import { sql, type RawBuilder } from 'kysely';
import {
  batchUntilShort,
  countRows,
  MIN_INSTANT,
  one,
  required,
  type PruneStep,
  type StepContext,
} from '../../lib/database/prune-step.ts';

/**
 * The receiver's prune steps (docs/retention.md): the raw request of old deliveries and of
 * handled quarantine rows. Their typed rows are the ledger and have no step (a test checks).
 */

/**
 * Why a delivery keeps its raw request past the retention: a feed event of it not yet numbered,
 * not yet handed on to every endpoint while a relay is in use (see notHandedOn), or dead at one
 * (a dead letter waits for an operator's re-drive, which sends the payload); or an open conflict
 * it is part of (an operator's open question about exactly these deliveries).
 */
function deliveryKept(alias: string, ctx: StepContext): RawBuilder<unknown> {
  const c = sql.ref(`${alias}.webhook_id`);
  return sql`(
    ${eventsNotHandedOn(c, ctx)}
    OR EXISTS (SELECT 1 FROM conflicts k WHERE k.webhook_id = ${c} AND k.resolved_at IS NULL)
    OR EXISTS (SELECT 1 FROM conflicts k WHERE k.first_webhook_id = ${c} AND k.resolved_at IS NULL)
  )`;
}

/**
 * Feed event `e` (numbered) is not handed on: one of its endpoints' delivery rows is not sent
 * (pending, dead; without a relay only dead counts: every row would stay pending for ever), or,
 * with a relay, an endpoint's fan-out cursor is still below it (not yet considered there: a
 * disabled or paused endpoint holds every later event back, as it holds back the feed's own
 * prune). The same rule as prune_sent_feed_events() (migration 2026-11-29T01-00-00).
 */
function notHandedOn({ relayInUse, fannedThrough }: StepContext) {
  return sql`(
    EXISTS (SELECT 1 FROM feed_endpoint_events r WHERE r.event_id = e.id
      AND ${relayInUse ? sql`r.state <> 'sent'` : sql`r.state = 'dead'`})
    ${relayInUse ? sql`OR e.position > ${fannedThrough}::bigint` : sql``}
  )`;
}

/** A feed event with this Webhookid not yet numbered, or numbered and not handed on. */
function eventsNotHandedOn(webhookId: RawBuilder<unknown>, ctx: StepContext) {
  return sql`(
    EXISTS (SELECT 1 FROM feed_events e WHERE e.webhook_id = ${webhookId} AND e.position IS NULL)
    OR EXISTS (SELECT 1 FROM feed_events e WHERE e.webhook_id = ${webhookId}
      AND e.position IS NOT NULL AND ${notHandedOn(ctx)})
  )`;
}

/**
 * Why a handled quarantine row keeps its body: as for a delivery, a feed event not handed on,
 * found by its Webhookid or, when the feed has quarantine events (a `quarantine_id` column, read
 * through to_jsonb so this statement works with or without it), by the row itself. Without a
 * Webhookid (a malformed header) that reads the backlog of events not yet handed on (delivery
 * rows not sent, events above the lowest cursor), which the relays keep small.
 */
function quarantineKept(alias: string, ctx: StepContext): RawBuilder<unknown> {
  const { relayInUse } = ctx;
  const q = (column: string) => sql.ref(`${alias}.${column}`);
  const isThisRow = sql`to_jsonb(e) ->> 'quarantine_id' = ${q('id')}::text`;
  return sql`(
    ${eventsNotHandedOn(q('webhook_id'), ctx)}
    OR (${q('webhook_id')} IS NULL AND (
      EXISTS (SELECT 1 FROM feed_events e WHERE e.position IS NULL AND ${isThisRow})
      -- An array, not a join: the backlog's ids are read once, then probed by primary key.
      OR EXISTS (SELECT 1 FROM feed_events e WHERE e.id = ANY (ARRAY(
          SELECT r.event_id FROM feed_endpoint_events r
          WHERE ${relayInUse ? sql`r.state <> 'sent'` : sql`r.state = 'dead'`}))
        AND ${isThisRow})
      ${
        relayInUse
          ? sql`OR EXISTS (SELECT 1 FROM feed_events e
              WHERE e.position > ${ctx.fannedThrough}::bigint AND ${isThisRow})`
          : sql``
      }))
  )`;
}

/**
 * Deliveries: raw_body, headers and payload set to null (pruned_at set); the row, its
 * Webhookid, body digest (deduplication), event name, time and warnings stay, and so do its
 * typed rows. In (received_at, webhook_id) order through the partial index of unpruned rows;
 * the cursor moves past rows that stay, so a run does not read them twice.
 */
export const deliveriesPruneStep: PruneStep = {
  name: 'webhook_deliveries',
  action: 'pruned',
  cutoff: (c) => c.raw,
  start: [MIN_INSTANT, '-1'],
  statement(ctx, [afterAt, afterId], limit) {
    return sql`
        WITH batch AS (
          SELECT c.webhook_id FROM webhook_deliveries c
          WHERE c.pruned_at IS NULL AND c.received_at < ${required(ctx.cutoffs.raw)}::timestamptz
            AND (c.received_at, c.webhook_id) > (${afterAt}::timestamptz, ${afterId}::bigint)
            AND NOT ${deliveryKept('c', ctx)}
          ORDER BY c.received_at, c.webhook_id
          LIMIT ${limit}
          FOR UPDATE OF c SKIP LOCKED
        ),
        pruned AS (
          UPDATE webhook_deliveries d
             SET raw_body = NULL, headers = NULL, payload = NULL, pruned_at = now()
            FROM batch WHERE d.webhook_id = batch.webhook_id
          RETURNING d.received_at, d.webhook_id
        )
        SELECT count(*) OVER ()::int AS n, received_at::text AS at, webhook_id::text AS id
        FROM pruned ORDER BY received_at DESC, webhook_id DESC LIMIT 1`;
  },
  async batch(db, ctx, cursor, limit) {
    const [afterAt, afterId] = cursor;
    const row = await one(
      db,
      this.statement(ctx, cursor, limit) as RawBuilder<
        { n: number; at: string; id: string } | undefined
      >,
    );
    if (!row) return { rows: 0, done: true, cursor: [afterAt ?? MIN_INSTANT, afterId ?? '-1'] };
    return { rows: row.n, done: row.n < limit, cursor: [row.at, row.id] };
  },
  async count(db, ctx) {
    return countRows(
      db,
      sql`
        SELECT count(*) FILTER (WHERE NOT kept) AS rows, count(*) FILTER (WHERE kept) AS held
        FROM (
          SELECT ${deliveryKept('c', ctx)} AS kept FROM webhook_deliveries c
          WHERE c.pruned_at IS NULL AND c.received_at < ${required(ctx.cutoffs.raw)}::timestamptz
        ) AS old`,
    );
  },
};

/**
 * Handled quarantine rows (re-driven or marked by an operator) whose handling is older than the
 * raw retention: body and headers cleared (to an empty body and `{}`, the columns stay NOT NULL
 * for the quarantine tools), pruned_at set. Open rows are never touched, nor a row with a feed
 * event not handed on (see quarantineKept).
 */
export const quarantinePruneStep: PruneStep = {
  name: 'quarantined_deliveries',
  action: 'pruned',
  cutoff: (c) => c.raw,
  start: [],
  statement(ctx, _cursor, limit) {
    return sql`
        UPDATE quarantined_deliveries
           SET raw_body = ''::bytea, headers = '{}'::jsonb, pruned_at = now()
         WHERE handled_at IS NOT NULL AND id = ANY(ARRAY(
           SELECT q.id FROM quarantined_deliveries q
           WHERE q.handled_at IS NOT NULL AND q.pruned_at IS NULL
             AND q.handled_at < ${required(ctx.cutoffs.raw)}::timestamptz
             AND NOT ${quarantineKept('q', ctx)}
           ORDER BY q.handled_at, q.id
           LIMIT ${limit}
           FOR UPDATE SKIP LOCKED))`;
  },
  batch: batchUntilShort,
  async count(db, ctx) {
    return countRows(
      db,
      sql`
        SELECT count(*) FILTER (WHERE handled AND NOT kept) AS rows,
          count(*) FILTER (WHERE NOT handled OR kept) AS held
        FROM (
          SELECT q.handled_at IS NOT NULL AS handled, ${quarantineKept('q', ctx)} AS kept
          FROM quarantined_deliveries q
          WHERE q.pruned_at IS NULL
            AND coalesce(q.handled_at, q.received_at) < ${required(ctx.cutoffs.raw)}::timestamptz
        ) AS old`,
    );
  },
};
