import type { Db } from '../../lib/database/database.ts';
import type {
  CommandDescription,
  CommandIo,
  CommandInput,
} from '../../lib/command-line/command-description.ts';
import { NotDone, UsageError } from '../../lib/command-line/errors.ts';
import { helpRows, subcommandHelp, type HelpRow } from '../../lib/command-line/help-rows.ts';
import {
  listQuarantine,
  markHandled,
  redriveQuarantined,
  showQuarantined,
} from './quarantine-operations.ts';

const USAGE = 'usage: npm run quarantine -- ';
const WIDTH = 27;

/** Each command's rows of the help: `quarantine --help` lists them all, `<command> --help` its own. */
const ROWS = {
  list: [
    ['list [--all] [--limit N]', 'open rows, oldest first (--all: handled ones too; default 100)'],
  ],
  show: [['show <id>', 'why it was refused, its headers and its body']],
  redrive: [
    [
      'redrive <id>',
      "run it through today's pipeline: stored (or found already stored)\nmarks it handled; still refused prints the reasons (exit 1)",
    ],
  ],
  resolve: [
    [
      'resolve <id> --note <text>',
      'mark it handled, saying what was done (e.g. "refunded by hand")',
    ],
  ],
} satisfies Record<string, HelpRow[]>;

const QUARANTINE_HELP = `${USAGE}<command> [options]

Authenticated deliveries the receiver refused and kept (quarantined_deliveries): money that may
be waiting for a person. Rows are never deleted; an operator marks each one handled.
Uses DATABASE_URL, or the embedded Postgres of a receiver running here.

${helpRows([...Object.values(ROWS).flat(), ['--help', 'this text']], WIDTH)}

Output is JSON on stdout. Exit 0 done, 1 not done (no such row, still refused, already
handled), 2 bad usage.`;

export interface QuarantineCommandDeps {
  io: CommandIo;
  now(): Date;
  /** Runs `work` on the receiver's database (the command line opens and closes it). */
  withDatabase: <T>(work: (db: Db) => Promise<T>) => Promise<T>;
}

/** `main.ts quarantine <command>`: list, show, re-drive and resolve quarantined deliveries. */
export function quarantineCommand({
  io,
  now,
  withDatabase,
}: QuarantineCommandDeps): CommandDescription {
  const json = (value: unknown) => io.out(JSON.stringify(value, null, 2));
  const sub = (
    name: keyof typeof ROWS,
    described: Omit<CommandDescription, 'name' | 'help'>,
  ): CommandDescription => ({ name, help: subcommandHelp(USAGE, ROWS[name], WIDTH), ...described });
  return {
    name: 'quarantine',
    help: QUARANTINE_HELP,
    commands: [
      sub('list', {
        options: [{ flags: '--all' }, { flags: '--limit <N>', parse: limit }],
        run: ({ options }) =>
          withDatabase(async (db) => {
            const rows = await listQuarantine(db, {
              limit: (options.limit as number | undefined) ?? 100,
              all: options.all === true,
            });
            json({ quarantined: rows });
          }),
      }),
      sub('show', {
        arguments: ['[id]'],
        run: (input) => {
          const id = rowId('show', input);
          return withDatabase(async (db) => {
            const row = await showQuarantined(db, id);
            if (!row) throw new NotDone(`no quarantined delivery ${id}`);
            json(row);
          });
        },
      }),
      sub('redrive', {
        arguments: ['[id]'],
        run: (input) => {
          const id = rowId('redrive', input);
          return withDatabase(async (db) => {
            const result = await redriveQuarantined(db, id, now);
            json({ id, ...result });
            // Still refused (the reasons are in the JSON), or already handled: not done.
            if (result.outcome !== 'stored' && result.outcome !== 'already-stored') {
              throw new NotDone();
            }
          });
        },
      }),
      sub('resolve', {
        arguments: ['[id]'],
        options: [{ flags: '--note <text>' }],
        run: (input) => {
          const id = rowId('resolve', input);
          const note = (input.options.note as string | undefined)?.trim();
          if (!note) throw new UsageError('resolve needs --note saying what was done');
          return withDatabase(async (db) => {
            if (!(await markHandled(db, id, 'marked', note, now))) {
              throw new NotDone(
                `no open quarantined delivery ${id} (not there, or already handled)`,
              );
            }
            json({ id, handling: 'marked', note });
          });
        },
      }),
    ],
  };
}

function limit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) {
    throw new UsageError('--limit must be a whole number from 1 to 10000');
  }
  return n;
}

/** The row a command is about: its id as listed, checked before the database is opened. */
function rowId(command: string, { args: [id] }: CommandInput): string {
  if (id === undefined || !/^\d{1,18}$/.test(id)) {
    throw new UsageError(`${command} needs the row's id (as listed)`);
  }
  return id;
}
