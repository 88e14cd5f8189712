import { sql } from 'kysely';
import type {
  CommandDescription,
  CommandIo,
  OptionValues,
} from '../../lib/command-line/command-description.ts';
import { NotDone, UsageError } from '../../lib/command-line/errors.ts';
import { subcommandHelp, type HelpRow } from '../../lib/command-line/help-rows.ts';
import type { Db } from '../../lib/database/database.ts';
import { findEndpoint } from '../endpoints/endpoint-store.ts';
import { resolveStartPosition } from '../endpoints/start-position.ts';
import { typeFilterSql } from '../endpoints/type-filter.ts';
import { USAGE, WIDTH, type OperatorDeps } from './command-deps.ts';
import { typeFilterOption } from './endpoint-options.ts';

/**
 * `feed replay --endpoint NAME --from … [--to …] [--type …] [--all] [--dry-run]`: hands events
 * already delivered to an endpoint to it again, with their original ids (consumers dedupe on
 * them, so a replay is safe for one that does). Only its `sent` rows in the range change: they
 * become pending as if new (attempts 0, `replays` + 1), and the relay sends them in position
 * order per key. Rows not delivered are left alone: pending ones are on their way, dead letters
 * are for `redrive`. A range with no end is refused without `--all`, so a slip of the keyboard
 * never re-sends years of events.
 */

export const REPLAY_ROW: HelpRow = [
  'replay --endpoint NAME --from <position|ISO time> [--to <position|ISO time>] [--type LIST] [--all] [--dry-run]',
  [
    'send events already delivered to that endpoint again (same ids), in batches,',
    'with progress. Positions are inclusive; a time means the events created from',
    '(--from) or before (--to) it. Without --to refused unless --all (--all alone:',
    'from the first). --type: the filter syntax of endpoints add. Prints the',
    'events by type; dead letters are left for redrive. --dry-run: the plan only',
  ].join('\n'),
];

interface Range {
  from: string;
  to: string;
}

/** A bound of the range: a position as given, else `now` or a time through start-position. */
async function bound(db: Db, text: string, side: 'from' | 'to'): Promise<string> {
  if (/^\d{1,18}$/.test(text)) return String(BigInt(text));
  const resolved = await resolveStartPosition(db, text);
  if ('problem' in resolved) throw new UsageError(`--${side}: ${resolved.problem}`);
  // The position just before the first event created at or after the time: --to stops there,
  // --from starts after it.
  return side === 'to' ? resolved.position : String(BigInt(resolved.position) + 1n);
}

async function rangeOf(db: Db, options: OptionValues): Promise<Range> {
  const all = options.all === true;
  const from = options.from as string | undefined;
  const to = options.to as string | undefined;
  if (from === undefined && !all)
    throw new UsageError('replay needs --from (or --all for every event)');
  if (to === undefined && !all) {
    throw new UsageError('replay needs --to: a range with no end is refused without --all');
  }
  return {
    from: from === undefined ? '0' : await bound(db, from, 'from'),
    to: to === undefined ? String(2n ** 63n - 1n) : await bound(db, to, 'to'),
  };
}

interface ReplayPlan {
  byType: { type: string; sent: number; pending: number; dead: number }[];
  sent: number;
  pending: number;
  dead: number;
}

async function planReplay(
  db: Db,
  endpointId: string,
  range: Range,
  types: string[],
): Promise<ReplayPlan> {
  const rows = await sql<{ type: string; sent: string; pending: string; dead: string }>`
    SELECT type, count(*) FILTER (WHERE state = 'sent') AS sent,
      count(*) FILTER (WHERE state = 'pending') AS pending,
      count(*) FILTER (WHERE state = 'dead') AS dead
    FROM feed_endpoint_events
    WHERE endpoint_id = ${endpointId}::bigint
      AND position BETWEEN ${range.from}::bigint AND ${range.to}::bigint
      AND ${typeFilterSql(types, sql.ref('type'))}
    GROUP BY type ORDER BY type
  `.execute(db);
  const byType = rows.rows.map((r) => ({
    type: r.type,
    sent: Number(r.sent),
    pending: Number(r.pending),
    dead: Number(r.dead),
  }));
  const sum = (field: 'sent' | 'pending' | 'dead') => byType.reduce((n, row) => n + row[field], 0);
  return { byType, sent: sum('sent'), pending: sum('pending'), dead: sum('dead') };
}

/**
 * Sets the range's sent rows back to pending, a batch per statement, walking up by position: a
 * row the relay sends again meanwhile is behind the walk, never taken twice. Answers how many.
 */
async function replayRows(
  db: Db,
  endpointId: string,
  range: Range,
  types: string[],
  onProgress: (done: number) => void,
  batchSize = 1000,
): Promise<number> {
  let done = 0;
  let after = BigInt(range.from) - 1n;
  for (;;) {
    const result = await sql<{ last: string | null; changed: string }>`
      WITH batch AS (
        SELECT position FROM feed_endpoint_events
        WHERE endpoint_id = ${endpointId}::bigint AND state = 'sent'
          AND position > ${String(after)}::bigint AND position <= ${range.to}::bigint
          AND ${typeFilterSql(types, sql.ref('type'))}
        ORDER BY position LIMIT ${batchSize} FOR UPDATE
      ), replayed AS (
        UPDATE feed_endpoint_events r SET state = 'pending', attempts = 0, first_attempt_at = NULL,
          next_attempt_at = NULL, claimed_by = NULL, claimed_until = NULL, last_error = NULL,
          sent_at = NULL, replays = r.replays + 1
        FROM batch WHERE r.endpoint_id = ${endpointId}::bigint AND r.position = batch.position
        RETURNING r.position
      )
      SELECT max(position)::text AS last, count(*)::text AS changed FROM replayed
    `.execute(db);
    const row = result.rows[0];
    const changed = Number(row?.changed ?? 0);
    if (changed === 0 || !row?.last) return done;
    done += changed;
    after = BigInt(row.last);
    onProgress(done);
  }
}

async function replay(db: Db, options: OptionValues, { out, err }: CommandIo): Promise<void> {
  const name = options.endpoint as string | undefined;
  if (name === undefined) throw new UsageError('replay needs --endpoint NAME');
  const types = (options.type as string[] | undefined) ?? ['*'];
  const endpoint = await findEndpoint(db, name);
  if (!endpoint) throw new NotDone(`no endpoint named ${name} (endpoints list)`);
  const range = await rangeOf(db, options);
  const plan = await planReplay(db, endpoint.id, range, types);
  const upTo = options.to === undefined ? 'the last' : range.to;
  out(
    `endpoint ${name}, positions ${range.from} to ${upTo}, types ${types.join(',')}: ` +
      `${plan.sent} delivered event(s) to hand over again${plan.sent > 0 ? ':' : ''}`,
  );
  for (const row of plan.byType.filter((r) => r.sent > 0)) {
    out(`  ${row.type.padEnd(28)}${String(row.sent).padStart(8)}`);
  }
  if (plan.pending > 0)
    out(`${plan.pending} event(s) in the range are not delivered yet: left as they are`);
  if (plan.dead > 0) {
    out(
      `${plan.dead} dead letter(s) in the range are not replayed: npm run feed -- redrive (they were never delivered)`,
    );
  }
  if (options.dryRun === true) {
    out('dry run: nothing changed');
    return;
  }
  const total = await replayRows(db, endpoint.id, range, types, (done) => out(`replayed ${done}…`));
  out(`replayed ${total} event(s) to endpoint ${name}: they go out again with their original ids`);
  if (!endpoint.enabled || endpoint.paused) {
    err(
      `endpoint ${name} is ${endpoint.enabled ? 'paused' : 'disabled'}: nothing is sent until it is ${endpoint.enabled ? 'resumed' : 'enabled'}`,
    );
  }
}

export function replayCommand({ io, withDatabase }: OperatorDeps): CommandDescription {
  return {
    name: 'replay',
    help: subcommandHelp(USAGE, [REPLAY_ROW], WIDTH),
    options: [
      { flags: '--endpoint <name>' },
      { flags: '--from <start>' },
      { flags: '--to <end>' },
      typeFilterOption('--type <list>'),
      { flags: '--all' },
      { flags: '--dry-run' },
    ],
    run: ({ options }) => withDatabase((db) => replay(db, options, io)),
  };
}
