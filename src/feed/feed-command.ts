import { readFeedStats } from './feed-metrics.ts';
import type { Db } from '../lib/database/database.ts';
import { listDeadLetters, redriveAll, redriveOne, setPaused } from './relay-control.ts';
import { runStartAfter } from './start-after-command.ts';

export const FEED_HELP = `Usage: npm run feed -- <command>

Operates the feed's push relay (docs/feed.md). Uses DATABASE_URL (or the embedded Postgres).

  status              positions, backlog, dead letters, blocked events, paused or not
  dead-letters [-n N] list dead-lettered events (oldest first, at most N, default 50)
  redrive <id>        send a dead letter again (id as listed, or evt_<id>)
  redrive --all       send every dead letter again
  start-after <position|now> [--dry-run] [--force]
                      turning the relay on over a database with history: mark every pending
                      event up to that position as sent without a POST (the consumer has them,
                      or does not want them); later events are relayed as usual. Prints what
                      would be skipped, by type; refused (exit 1, nothing marked) unless the
                      relay is paused, no event in the range was attempted and none is held
                      behind a dead letter. --dry-run: the plan only; --force: skip them anyway
  pause [reason]      stop every instance's relay from sending (POSTs in flight finish)
  resume              let the relays send again
  --help              this text
`;

/** Runs one command; returns the exit code. Output and errors go to `out` and `err`. */
export async function runFeedCommand(
  feedDb: Db,
  args: readonly string[],
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  const db = feedDb;
  const [command, ...rest] = args;
  switch (command) {
    case 'status': {
      const s = await readFeedStats(db);
      out(`last position:        ${s.lastPosition}`);
      out(`awaiting a position:  ${s.unassigned}`);
      out(`relay backlog:        ${s.pending} (oldest ${Math.round(s.oldestPendingSeconds)} s)`);
      out(`blocked by a dead letter of their key: ${s.blocked}`);
      out(`dead letters:         ${s.dead}`);
      out(
        `relay:                ${s.paused ? `paused (${s.pausedReason ?? 'no reason given'})` : 'running'}`,
      );
      return 0;
    }
    case 'dead-letters': {
      const limit = rest[0] === '-n' ? Number(rest[1]) : 50;
      if (!Number.isInteger(limit) || limit < 1)
        return usage(err, 'dead-letters -n needs a positive number');
      const rows = await listDeadLetters(db, limit);
      if (rows.length === 0) out('no dead letters');
      for (const r of rows) {
        out(
          `${r.id}\tposition ${r.position}\t${r.type}\t${r.event_name}/${r.business_key}\t` +
            `${r.attempts} attempts\tdead since ${r.dead_at}\t${r.last_error ?? ''}`,
        );
      }
      return 0;
    }
    case 'redrive': {
      if (rest[0] === '--all') {
        const total = await redriveAll(db, (done) => out(`re-driven ${done}…`));
        out(`re-driven ${total} dead letter(s)`);
        return 0;
      }
      const id = /^(?:evt_)?(\d{1,18})$/.exec(rest[0] ?? '')?.[1];
      if (!id) return usage(err, 'redrive needs an event id or --all');
      if (!(await redriveOne(db, id))) {
        err(`event ${id} is not a dead letter`);
        return 1;
      }
      out(`re-driven event ${id}`);
      return 0;
    }
    case 'start-after': {
      const code = await runStartAfter(db, rest, out, err);
      if (code === 2) err(FEED_HELP);
      return code;
    }
    case 'pause':
      await setPaused(db, true, rest.join(' ') || null);
      out('relay paused on every instance');
      return 0;
    case 'resume':
      await setPaused(db, false, null);
      out('relay resumed');
      return 0;
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      out(FEED_HELP);
      return command === undefined ? 2 : 0;
    default:
      return usage(err, `unknown command: ${command}`);
  }
}

function usage(err: (line: string) => void, problem: string): number {
  err(problem);
  err(FEED_HELP);
  return 2;
}
