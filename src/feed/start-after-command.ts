import { sql } from 'kysely';
import type { Db } from '../lib/database/database.ts';
import type { CommandIo } from '../lib/command-line/command-description.ts';
import { NotDone, UsageError } from '../lib/command-line/errors.ts';
import { lastPosition } from './relay-control.ts';

/**
 * `feed start-after <position|now> [--dry-run] [--force]`: turning the push relay on over a
 * database with history. Every pending event up to the position is marked sent without a POST,
 * so the push consumer never gets it: right for a history the consumer already has, wrong for an
 * event the relay has been trying to deliver (the consumer is waiting for it) or one held behind
 * a dead letter of its key (it goes out after the redrive). So the command first makes a plan
 * (what would be skipped, by type) and refuses unless the relay is paused, no event in the range
 * has been attempted and none is held behind a dead letter; `--force` overrides that, and
 * `--dry-run` prints the plan alone.
 */

interface StartAfterPlan {
  position: string;
  paused: boolean;
  /** Pending events up to the position, by type: what would be marked sent without a POST. */
  byType: { type: string; events: number; attempted: number; held: number }[];
  /** Events that would be marked. */
  events: number;
  /** Of those, events the relay has already tried to send (or holds a claim on). */
  attempted: number;
  /** Of those, events waiting behind an earlier dead letter of their key. */
  held: number;
  /** Dead letters up to the position: never marked (they are for `redrive`). */
  dead: number;
}

/** What `start-after` would do, read in one statement (pending rows in range, by type). */
async function planStartAfter(db: Db, position: string): Promise<StartAfterPlan> {
  const rows = await sql<{ type: string; events: string; attempted: string; held: string }>`
    SELECT e.type, count(*) AS events,
      count(*) FILTER (WHERE e.attempts > 0 OR e.claimed_by IS NOT NULL) AS attempted,
      count(*) FILTER (WHERE EXISTS (
        SELECT 1 FROM feed_events d
        WHERE d.relay_state = 'dead' AND d.event_name = e.event_name
          AND d.business_key = e.business_key AND d.position < e.position)) AS held
    FROM feed_events e
    WHERE e.relay_state = 'pending' AND e.position IS NOT NULL AND e.position <= ${position}::bigint
    GROUP BY e.type ORDER BY e.type
  `.execute(db);
  const state = await sql<{ paused: boolean; dead: string }>`
    SELECT (SELECT paused FROM feed_relay_control) AS paused,
      (SELECT count(*) FROM feed_events
       WHERE relay_state = 'dead' AND position <= ${position}::bigint) AS dead
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
    position,
    paused: state.rows[0]?.paused ?? false,
    byType,
    events: sum('events'),
    attempted: sum('attempted'),
    held: sum('held'),
    dead: Number(state.rows[0]?.dead ?? 0),
  };
}

/** Why the plan may not run without --force; empty when it may. */
function refusals(plan: StartAfterPlan): string[] {
  return [
    !plan.paused &&
      'the relay is not paused (npm run feed -- pause, and wait for the POSTs in flight)',
    plan.attempted > 0 &&
      `${plan.attempted} event(s) in the range have been attempted: the consumer is waiting for them`,
    plan.held > 0 &&
      `${plan.held} event(s) in the range are held behind a dead letter of their key (redrive it first)`,
  ].filter((reason): reason is string => typeof reason === 'string');
}

/** The plan as lines for the operator: what would be skipped, by type. */
function describePlan(plan: StartAfterPlan): string[] {
  const lines = [
    `up to position ${plan.position}: ${plan.events} pending event(s) would be marked sent without relaying them${plan.events > 0 ? ':' : ''}`,
    ...plan.byType.map(
      (row) =>
        `  ${row.type.padEnd(28)}${String(row.events).padStart(8)}` +
        (row.attempted > 0 ? `  (${row.attempted} attempted)` : '') +
        (row.held > 0 ? `  (${row.held} behind a dead letter)` : ''),
    ),
    `relay: ${plan.paused ? 'paused' : 'running'}`,
  ];
  if (plan.dead > 0) {
    lines.push(`${plan.dead} dead letter(s) in the range are left as they are (for redrive)`);
  }
  return lines;
}

/**
 * Marks the plan's events sent, in batches each its own commit. Unless `force`, each batch takes
 * only events that still meet the plan's conditions (never attempted nor claimed, not behind a
 * dead letter, the relay paused), so a relay resumed meanwhile cannot lose one. Answers how many
 * were marked.
 */
async function markStartedAfter(
  db: Db,
  position: string,
  options: { force: boolean; onProgress: (done: number) => void; batchSize?: number },
): Promise<number> {
  const guarded = options.force
    ? sql``
    : sql`AND o.attempts = 0 AND o.claimed_by IS NULL
        AND (SELECT paused FROM feed_relay_control)
        AND NOT EXISTS (
          SELECT 1 FROM feed_events d
          WHERE d.relay_state = 'dead' AND d.event_name = o.event_name
            AND d.business_key = o.business_key AND d.position < o.position)`;
  let done = 0;
  for (;;) {
    const result = await sql`
      UPDATE feed_events SET relay_state = 'sent', sent_at = now(), claimed_by = NULL,
        claimed_until = NULL, next_attempt_at = NULL,
        last_error = 'not relayed: the relay was started after position ' || ${position}::text
      WHERE id IN (
        SELECT o.id FROM feed_events o
        WHERE o.relay_state = 'pending' AND o.position IS NOT NULL
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
 * The command: plan, print it, refuse (NotDone) or, unless `dryRun`, mark. A position that is
 * neither digits nor `now` is a UsageError.
 */
export async function startAfter(
  db: Db,
  options: { position: string; dryRun: boolean; force: boolean },
  io: CommandIo,
): Promise<void> {
  const { out, err } = io;
  const given = options.position === 'now' ? await lastPosition(db) : options.position;
  if (!given || !/^\d{1,18}$/.test(given)) {
    throw new UsageError('start-after needs a position (digits) or now');
  }
  const { force } = options;
  const plan = await planStartAfter(db, given);
  for (const line of describePlan(plan)) out(line);
  const reasons = refusals(plan);
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
  const total = await markStartedAfter(db, given, {
    force,
    onProgress: (done) => out(`marked ${done}…`),
  });
  out(`marked ${total} event(s) up to position ${given} as sent without relaying them`);
  // Forced, fewer is harmless (the relay sent or holds the rest); guarded, the rest is waiting.
  if (force || total >= plan.events) return;
  throw new NotDone(
    `${plan.events - total} event(s) of the plan were not marked: attempted or claimed meanwhile, or the relay was resumed; start-after --dry-run shows them`,
  );
}
