import { readFeedStats, type EndpointStats } from './feed-stats.ts';
import type { Db } from '../lib/database/database.ts';
import type {
  CommandDescription,
  CommandIo,
  OptionValues,
} from '../lib/command-line/command-description.ts';
import { NotDone, UsageError } from '../lib/command-line/errors.ts';
import { helpRows, subcommandHelp, type HelpRow } from '../lib/command-line/help-rows.ts';
import {
  endpointNamed,
  listDeadLetters,
  redriveAll,
  redriveOne,
  setPaused,
} from './relay-control.ts';
import { startAfter } from './start-after-command.ts';
import { OPERATOR_ROWS, operatorCommands } from './commands/operator-commands.ts';

const USAGE = 'Usage: npm run feed -- ';
const WIDTH = 20;

/** Each command's rows of the help: `feed --help` lists them all, `feed <command> --help` its own. */
const ROWS = {
  status: [
    [
      'status',
      [
        'positions; per endpoint: enabled or paused, fanned through, backlog,',
        'oldest pending age, dead letters, events blocked behind them',
      ].join('\n'),
    ],
  ],
  'dead-letters': [
    [
      'dead-letters [--endpoint NAME] [-n N]',
      "list dead letters (oldest first, at most N, default 50), one endpoint's or all",
    ],
  ],
  redrive: [
    [
      'redrive <id> [--endpoint NAME]',
      'send a dead letter again (id as listed, or evt_<id>); without --endpoint, wherever it is one',
    ],
    ['redrive --all [--endpoint NAME]', "send every dead letter again (one endpoint's, or all)"],
  ],
  'start-after': [
    [
      'start-after <position|now|time> [--endpoint NAME] [--dry-run] [--force]',
      [
        'turning an endpoint (default: configured) on over a database with history:',
        'skip every event up to that position (or up to the first event created at',
        'or after an ISO time) without sending it (the consumer has them, or does',
        'not want them); later events are sent as usual. Prints what would be',
        'skipped, by type; refused (exit 1, nothing marked) unless the endpoint is',
        'paused, no event in the range was attempted and none is held behind a dead',
        'letter. --dry-run: the plan only; --force: skip them anyway',
      ].join('\n'),
    ],
  ],
  pause: [
    [
      'pause [--endpoint NAME] [reason]',
      "stop every instance's relay sending to the endpoint, or to all (sends in flight finish)",
    ],
  ],
  resume: [['resume [--endpoint NAME]', 'let the relays send to the endpoint (or to all) again']],
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
            for (const endpoint of s.endpoints) for (const line of describe(endpoint)) out(line);
          }),
      }),
      sub('dead-letters', {
        options: [ENDPOINT, { flags: '-n <N>', parse: positiveNumber }],
        run: ({ options }) =>
          withDatabase(async (db) => {
            const endpointId = await endpointOption(db, options);
            const limit = (options.n as number | undefined) ?? 50;
            const rows = await listDeadLetters(db, { endpointId, limit });
            if (rows.length === 0) out('no dead letters');
            for (const r of rows) {
              out(
                `${r.endpoint}\t${r.id}\tposition ${r.position}\t${r.type}\t${r.event_name}/${r.business_key}\t` +
                  `${r.attempts} attempts\tdead since ${r.dead_at}\t${r.last_error ?? ''}`,
              );
            }
          }),
      }),
      sub('redrive', {
        arguments: ['[id]'],
        options: [ENDPOINT, { flags: '--all' }],
        run: async ({ args: [given], options }) => {
          if (options.all === true) {
            return withDatabase(async (db) => {
              const endpointId = await endpointOption(db, options);
              const total = await redriveAll(db, {
                endpointId,
                onProgress: (done) => out(`re-driven ${done}…`),
              });
              out(`re-driven ${total} dead letter(s)`);
            });
          }
          const id = /^(?:evt_)?(\d{1,18})$/.exec(given ?? '')?.[1];
          if (!id) throw new UsageError('redrive needs an event id or --all');
          // Without --endpoint: wherever the event is a dead letter (one endpoint, nearly always).
          const name = typeof options.endpoint === 'string' ? options.endpoint : undefined;
          return withDatabase(async (db) => {
            const endpoint = name === undefined ? undefined : await endpointId(db, name);
            const redriven = await redriveOne(db, endpoint, id);
            if (redriven === 0) {
              throw new NotDone(`event ${id} is not a dead letter${name ? ` of ${name}` : ''}`);
            }
            out(`re-driven event ${id}${name ? ` to ${name}` : ` (${redriven} endpoint(s))`}`);
          });
        },
      }),
      sub('start-after', {
        arguments: ['[position]'],
        options: [ENDPOINT, { flags: '--dry-run' }, { flags: '--force' }],
        run: ({ args: [position], options }) => {
          if (position === undefined) {
            throw new UsageError('start-after needs a position (digits), now or a time');
          }
          return withDatabase((db) =>
            startAfter(
              db,
              {
                position,
                ...(typeof options.endpoint === 'string' && { endpoint: options.endpoint }),
                dryRun: options.dryRun === true,
                force: options.force === true,
              },
              { out, err },
            ),
          );
        },
      }),
      sub('pause', {
        arguments: ['[reason...]'],
        options: [ENDPOINT],
        run: ({ args, options }) =>
          withDatabase(async (db) => {
            const endpointId = await endpointOption(db, options);
            const names = await setPaused(db, {
              endpointId,
              paused: true,
              reason: args.join(' ') || null,
            });
            out(`paused on every instance: ${names.join(', ') || 'no endpoint'}`);
          }),
      }),
      sub('resume', {
        options: [ENDPOINT],
        run: ({ options }) =>
          withDatabase(async (db) => {
            const endpointId = await endpointOption(db, options);
            const names = await setPaused(db, { endpointId, paused: false, reason: null });
            out(`resumed: ${names.join(', ') || 'no endpoint'}`);
          }),
      }),
      ...operatorCommands({ io, withDatabase }),
    ],
  };
}

const ENDPOINT = { flags: '--endpoint <name>' };

/** The id of the endpoint `--endpoint` names (undefined without one). */
async function endpointOption(db: Db, options: OptionValues): Promise<string | undefined> {
  return typeof options.endpoint === 'string' ? endpointId(db, options.endpoint) : undefined;
}

/** The id of the endpoint called `name`; NotDone when none is. */
async function endpointId(db: Db, name: string): Promise<string> {
  const endpoint = await endpointNamed(db, name);
  if (!endpoint) throw new NotDone(`no endpoint is called ${name}`);
  return endpoint.id;
}

/** One endpoint's block of `feed status`. */
function describe(e: EndpointStats): string[] {
  const state = !e.enabled
    ? 'disabled'
    : e.paused
      ? `paused (${e.pausedReason ?? 'no reason given'})`
      : 'running';
  return [
    `endpoint ${e.name} (${e.kind}): ${state}`,
    `  fanned through:     ${e.fannedThrough} (${e.notFannedOut} later position(s) not yet)`,
    `  backlog:            ${e.pending} (oldest ${Math.round(e.oldestPendingSeconds)} s)`,
    `  dead letters:       ${e.dead}`,
    `  blocked by a dead letter of their key: ${e.blocked}`,
    ...(e.enabled
      ? []
      : [
          `  holds back the prune: no event above position ${e.fannedThrough} goes while it stays`,
          '  (npm run feed -- endpoints remove releases them)',
        ]),
  ];
}

function positiveNumber(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1) {
    throw new UsageError('dead-letters -n needs a positive number');
  }
  return limit;
}
