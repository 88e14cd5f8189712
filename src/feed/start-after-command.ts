import { sql } from 'kysely';
import type { Db } from '../lib/database/database.ts';
import type { CommandIo } from '../lib/command-line/command-description.ts';
import { NotDone, UsageError } from '../lib/command-line/errors.ts';
import {
  describeStartPlan,
  planStart,
  resolveStartPosition,
  startRefusals,
} from './endpoints/start-position.ts';
import { typeFilterSql } from './endpoints/type-filter.ts';
import { CONFIGURED_ENDPOINT, endpointNamed, type NamedEndpoint } from './relay-control.ts';

/**
 * `feed start-after <position|now|time> [--endpoint NAME] [--dry-run] [--force]`: turning an
 * endpoint on over a database with history. Every event up to the position is skipped for that
 * endpoint: its pending rows are marked sent without sending them, and its fan-out cursor moves
 * up to the position, so events not yet fanned out to it never get a row. Its consumer never
 * gets them: right for a history it already has, wrong for an event the endpoint has been trying
 * to deliver (the consumer is waiting for it) or one held behind a dead letter of its key (it
 * goes out after the redrive). So the command first makes a plan (what would be skipped, by
 * type) and refuses unless the endpoint is paused, no event in the range has been attempted and
 * none is held behind a dead letter (src/feed/endpoints/start-position.ts); `--force` overrides
 * that, and `--dry-run` prints the plan alone.
 */

/**
 * Moves the endpoint's cursor up to `position` (never down), so the fan-out makes no row for an
 * event up to it; answers how many events its filter selects were skipped so. The cursor moves
 * first: the fan-out holds the endpoint's row while it inserts, so once this has waited for it,
 * every row up to the position exists for markStartedAfter to see. Unless `force`, only while
 * the endpoint is paused.
 */
async function moveCursor(
  db: Db,
  endpoint: NamedEndpoint,
  position: string,
  force: boolean,
): Promise<number> {
  const result = await sql<{ skipped: string }>`
    WITH old AS (
      SELECT id, fanned_through AS was FROM feed_endpoints
      WHERE id = ${endpoint.id}::bigint ${force ? sql`` : sql`AND paused`}
      FOR UPDATE
    ),
    moved AS (
      UPDATE feed_endpoints f SET fanned_through = ${position}::bigint, updated_at = now()
      FROM old WHERE f.id = old.id AND old.was < ${position}::bigint
      RETURNING old.was
    )
    SELECT count(*) AS skipped FROM feed_events e, moved
    WHERE e.position > moved.was AND e.position <= ${position}::bigint
      AND ${typeFilterSql(endpoint.types, sql.ref('e.type'))}
  `.execute(db);
  return Number(result.rows[0]?.skipped ?? 0);
}

/**
 * Marks the endpoint's pending rows up to the position sent, in batches each its own commit.
 * Unless `force`, each batch takes only rows that still meet the plan's conditions (never
 * attempted nor claimed, not behind a dead letter, the endpoint paused), so a relay resumed
 * meanwhile cannot lose one. Answers how many were marked.
 */
async function markStartedAfter(
  db: Db,
  endpointId: string,
  position: string,
  options: { force: boolean; onProgress: (done: number) => void; batchSize?: number },
): Promise<number> {
  const guarded = options.force
    ? sql``
    : sql`AND o.attempts = 0 AND o.claimed_by IS NULL
        AND (SELECT paused FROM feed_endpoints WHERE id = ${endpointId}::bigint)
        AND NOT EXISTS (
          SELECT 1 FROM feed_endpoint_events d
          WHERE d.endpoint_id = o.endpoint_id AND d.state = 'dead'
            AND d.event_name = o.event_name AND d.business_key = o.business_key
            AND d.position < o.position)`;
  let done = 0;
  for (;;) {
    const result = await sql`
      UPDATE feed_endpoint_events SET state = 'sent', sent_at = now(), claimed_by = NULL,
        claimed_until = NULL, next_attempt_at = NULL,
        last_error = 'not relayed: the endpoint was started after position ' || ${position}::text
      WHERE endpoint_id = ${endpointId}::bigint AND position IN (
        SELECT o.position FROM feed_endpoint_events o
        WHERE o.endpoint_id = ${endpointId}::bigint AND o.state = 'pending'
          AND o.position <= ${position}::bigint ${guarded}
        ORDER BY o.position LIMIT ${options.batchSize ?? 1000} FOR UPDATE SKIP LOCKED)
    `.execute(db);
    const changed = Number(result.numAffectedRows ?? 0n);
    done += changed;
    if (changed === 0) return done;
    options.onProgress(done);
  }
}

/**
 * The command: plan, print it, refuse (NotDone) or, unless `dryRun`, skip. A position that is
 * not digits, `now` or a time is a UsageError; an endpoint that does not exist, NotDone.
 */
export async function startAfter(
  db: Db,
  options: { position: string; endpoint?: string; dryRun: boolean; force: boolean },
  io: CommandIo,
): Promise<void> {
  const { out, err } = io;
  const resolved = await resolveStartPosition(db, options.position);
  if ('problem' in resolved) {
    throw new UsageError(
      `start-after needs a position (digits), now or a time: ${resolved.problem}`,
    );
  }
  const { position } = resolved;
  const name = options.endpoint ?? CONFIGURED_ENDPOINT;
  const endpoint = await endpointNamed(db, name);
  if (!endpoint) throw new NotDone(`no endpoint is called ${name}`);
  const { force } = options;
  const plan = await planStart(db, endpoint, position);
  for (const line of describeStartPlan(plan)) out(line);
  const reasons = startRefusals(plan);
  if (options.dryRun) {
    out(
      reasons.length === 0
        ? 'dry run: nothing marked; without --dry-run this would proceed'
        : `dry run: nothing marked; without --force this would be refused: ${reasons.join('; ')}`,
    );
    return;
  }
  if (reasons.length > 0 && !force) {
    throw new NotDone(
      `refused, nothing marked: ${reasons.join('; ')}. --dry-run shows the plan; --force skips these events anyway`,
    );
  }
  if (reasons.length > 0) err(`--force: proceeding although ${reasons.join('; ')}`);
  const skipped = await moveCursor(db, endpoint, position, force);
  if (skipped > 0) out(`skipped ${skipped} event(s) not yet fanned out to ${name}`);
  const marked = await markStartedAfter(db, endpoint.id, position, {
    force,
    onProgress: (done) => out(`marked ${skipped + done}…`),
  });
  const total = skipped + marked;
  out(`marked ${total} event(s) up to position ${position} as sent without relaying them`);
  // Forced, fewer is harmless (the relay sent or holds the rest); guarded, the rest is waiting.
  if (force || total >= plan.events) return;
  throw new NotDone(
    `${plan.events - total} event(s) of the plan were not marked: attempted or claimed meanwhile, or the endpoint was resumed; start-after --dry-run shows them`,
  );
}
