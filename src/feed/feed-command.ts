import { readFeedStats } from './feed-metrics.ts';
import type { Db } from '../lib/database/database.ts';
import type { CommandDescription, CommandIo } from '../lib/command-line/command-description.ts';
import { NotDone, UsageError } from '../lib/command-line/errors.ts';
import { helpRows, subcommandHelp, type HelpRow } from '../lib/command-line/help-rows.ts';
import { listDeadLetters, redriveAll, redriveOne, setPaused } from './relay-control.ts';
import { startAfter } from './start-after-command.ts';
import { OPERATOR_ROWS, operatorCommands } from './commands/operator-commands.ts';

const USAGE = 'Usage: npm run feed -- ';
const WIDTH = 20;

/** Each command's rows of the help: `feed --help` lists them all, `feed <command> --help` its own. */
const ROWS = {
  status: [['status', 'positions, backlog, dead letters, blocked events, paused or not']],
  'dead-letters': [
    ['dead-letters [-n N]', 'list dead-lettered events (oldest first, at most N, default 50)'],
  ],
  redrive: [
    ['redrive <id>', 'send a dead letter again (id as listed, or evt_<id>)'],
    ['redrive --all', 'send every dead letter again'],
  ],
  'start-after': [
    [
      'start-after <position|now> [--dry-run] [--force]',
      [
        'turning the relay on over a database with history: mark every pending',
        'event up to that position as sent without a POST (the consumer has them,',
        'or does not want them); later events are relayed as usual. Prints what',
        'would be skipped, by type; refused (exit 1, nothing marked) unless the',
        'relay is paused, no event in the range was attempted and none is held',
        'behind a dead letter. --dry-run: the plan only; --force: skip them anyway',
      ].join('\n'),
    ],
  ],
  pause: [['pause [reason]', "stop every instance's relay from sending (POSTs in flight finish)"]],
  resume: [['resume', 'let the relays send again']],
} satisfies Record<string, HelpRow[]>;

const FEED_HELP = `${USAGE}<command>

Operates the feed's push relay (docs/feed.md). Uses DATABASE_URL (or the embedded Postgres).

${helpRows([...Object.values(ROWS).flat(), ...OPERATOR_ROWS, ['--help', 'this text']], WIDTH)}`;

export interface FeedCommandDeps {
  io: CommandIo;
  /** Runs `work` on the receiver's database (the command line opens and closes it). */
  withDatabase: <T>(work: (db: Db) => Promise<T>) => Promise<T>;
}

/** `main.ts feed <command>`: the feed relay's operator commands (see FEED_HELP). */
export function feedCommand({ io, withDatabase }: FeedCommandDeps): CommandDescription {
  const { out, err } = io;
  const sub = (
    name: keyof typeof ROWS,
    described: Omit<CommandDescription, 'name' | 'help'>,
  ): CommandDescription => ({
    name,
    help: subcommandHelp(USAGE, ROWS[name], WIDTH),
    ...described,
  });
  return {
    name: 'feed',
    help: FEED_HELP,
    commands: [
      sub('status', {
        run: () =>
          withDatabase(async (db) => {
            const s = await readFeedStats(db);
            out(`last position:        ${s.lastPosition}`);
            out(`awaiting a position:  ${s.unassigned}`);
            out(
              `relay backlog:        ${s.pending} (oldest ${Math.round(s.oldestPendingSeconds)} s)`,
            );
            out(`blocked by a dead letter of their key: ${s.blocked}`);
            out(`dead letters:         ${s.dead}`);
            out(
              `relay:                ${s.paused ? `paused (${s.pausedReason ?? 'no reason given'})` : 'running'}`,
            );
          }),
      }),
      sub('dead-letters', {
        options: [{ flags: '-n <N>', parse: positiveNumber }],
        run: ({ options }) =>
          withDatabase(async (db) => {
            const rows = await listDeadLetters(db, (options.n as number | undefined) ?? 50);
            if (rows.length === 0) out('no dead letters');
            for (const r of rows) {
              out(
                `${r.id}\tposition ${r.position}\t${r.type}\t${r.event_name}/${r.business_key}\t` +
                  `${r.attempts} attempts\tdead since ${r.dead_at}\t${r.last_error ?? ''}`,
              );
            }
          }),
      }),
      sub('redrive', {
        arguments: ['[id]'],
        options: [{ flags: '--all' }],
        run: async ({ args: [given], options }) => {
          if (options.all === true) {
            return withDatabase(async (db) => {
              const total = await redriveAll(db, (done) => out(`re-driven ${done}…`));
              out(`re-driven ${total} dead letter(s)`);
            });
          }
          const id = /^(?:evt_)?(\d{1,18})$/.exec(given ?? '')?.[1];
          if (!id) throw new UsageError('redrive needs an event id or --all');
          return withDatabase(async (db) => {
            if (!(await redriveOne(db, id))) throw new NotDone(`event ${id} is not a dead letter`);
            out(`re-driven event ${id}`);
          });
        },
      }),
      sub('start-after', {
        arguments: ['[position]'],
        options: [{ flags: '--dry-run' }, { flags: '--force' }],
        run: ({ args: [position], options }) => {
          if (position === undefined)
            throw new UsageError('start-after needs a position (digits) or now');
          return withDatabase((db) =>
            startAfter(
              db,
              { position, dryRun: options.dryRun === true, force: options.force === true },
              { out, err },
            ),
          );
        },
      }),
      sub('pause', {
        arguments: ['[reason...]'],
        run: ({ args }) =>
          withDatabase(async (db) => {
            await setPaused(db, true, args.join(' ') || null);
            out('relay paused on every instance');
          }),
      }),
      sub('resume', {
        run: () =>
          withDatabase(async (db) => {
            await setPaused(db, false, null);
            out('relay resumed');
          }),
      }),
      ...operatorCommands({ io, withDatabase }),
    ],
  };
}

function positiveNumber(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1) {
    throw new UsageError('dead-letters -n needs a positive number');
  }
  return limit;
}
