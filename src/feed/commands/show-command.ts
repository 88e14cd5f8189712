import type { CommandDescription } from '../../lib/command-line/command-description.ts';
import { NotDone, UsageError } from '../../lib/command-line/errors.ts';
import { subcommandHelp, type HelpRow } from '../../lib/command-line/help-rows.ts';
import type { Db } from '../../lib/database/database.ts';
import { listEndpoints } from '../endpoints/endpoint-store.ts';
import { selectsType } from '../endpoints/type-filter.ts';
import { USAGE, WIDTH, type OperatorDeps } from './command-deps.ts';
import { eventIdOf, oneLine } from './times.ts';

/**
 * `feed show <event-id>`: one event and what became of it at every endpoint: its state there
 * and every attempt the log still holds (RETENTION prunes old ones), oldest first. An endpoint
 * whose filter selects the event but has no row for it says why (not fanned out yet, or it
 * started after it).
 */

export const SHOW_ROW: HelpRow = [
  'show <event-id>',
  'an event (evt_N or N): type, key, position, and per endpoint its state and\nevery attempt (time, outcome, status, duration, answer, error)',
];

/** One attempt as a line: when, which, how it went, and what the other side said. */
export function attemptLine(a: {
  started_at: Date;
  attempt: number;
  outcome: string;
  status: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
}): string {
  return [
    a.started_at.toISOString(),
    `#${a.attempt}`,
    a.outcome.padEnd(6),
    a.status === null ? '-  ' : String(a.status),
    `${a.duration_ms} ms`,
    a.error === null ? '' : `error: ${oneLine(a.error)}`,
    a.response_excerpt === null ? '' : `answer: ${oneLine(a.response_excerpt)}`,
  ]
    .filter(Boolean)
    .join('  ');
}

async function showEvent(db: Db, id: string, out: (line: string) => void): Promise<void> {
  const event = await db
    .selectFrom('feed_events')
    .select(['id', 'type', 'event_name', 'business_key', 'position', 'created_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!event) throw new NotDone(`no feed event evt_${id} (pruned, or never made)`);
  out(`evt_${event.id}  ${event.type}  ${event.event_name}/${event.business_key}`);
  out(
    `position ${event.position ?? '(not numbered yet)'}, created ${event.created_at.toISOString()}`,
  );
  const [rows, attempts, endpoints] = await Promise.all([
    db.selectFrom('feed_endpoint_events').selectAll().where('event_id', '=', id).execute(),
    db
      .selectFrom('feed_attempts')
      .selectAll()
      .where('event_id', '=', id)
      .orderBy('started_at')
      .orderBy('id')
      .execute(),
    listEndpoints(db),
  ]);
  for (const endpoint of endpoints) {
    const row = rows.find((r) => r.endpoint_id === endpoint.id);
    if (!row) {
      if (!selectsType(endpoint.types, event.type)) continue;
      const why =
        event.position === null || BigInt(endpoint.fanned_through) < BigInt(event.position)
          ? 'not fanned out to it yet'
          : 'not handed to it: it started after this event (or its types did not select it then)';
      out(`endpoint ${endpoint.name}: ${why}`);
      continue;
    }
    const when =
      row.state === 'sent' && row.sent_at
        ? `, sent ${row.sent_at.toISOString()}`
        : row.state === 'dead' && row.dead_at
          ? `, dead since ${row.dead_at.toISOString()}`
          : row.next_attempt_at
            ? `, next attempt ${row.next_attempt_at.toISOString()}`
            : '';
    out(
      `endpoint ${endpoint.name}: ${row.state}, ${row.attempts} attempt(s)${when}` +
        (row.replays > 0 ? `, replayed ${row.replays} time(s)` : '') +
        (row.state !== 'sent' && row.last_error ? `, last error: ${oneLine(row.last_error)}` : ''),
    );
    for (const attempt of attempts.filter((a) => a.endpoint_id === endpoint.id)) {
      out(`  ${attemptLine(attempt)}`);
    }
  }
}

export function showCommand({ io, withDatabase }: OperatorDeps): CommandDescription {
  return {
    name: 'show',
    help: subcommandHelp(USAGE, [SHOW_ROW], WIDTH),
    arguments: ['[event-id]'],
    run: ({ args: [given] }) => {
      const id = eventIdOf(given);
      if (id === undefined) throw new UsageError('show needs an event id: evt_N or N');
      return withDatabase((db) => showEvent(db, id, io.out));
    },
  };
}
