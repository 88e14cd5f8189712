import { parseArgs } from 'node:util';
import type { Db } from '../../lib/database/database.ts';
import {
  listQuarantine,
  markHandled,
  redriveQuarantined,
  showQuarantined,
} from './quarantine-operations.ts';

export const QUARANTINE_HELP = `usage: npm run quarantine -- <command> [options]

Authenticated deliveries the receiver refused and kept (quarantined_deliveries): money that may
be waiting for a person. Rows are never deleted; an operator marks each one handled.
Uses DATABASE_URL, or the embedded Postgres of a receiver running here.

  list [--all] [--limit N]   open rows, oldest first (--all: handled ones too; default 100)
  show <id>                  why it was refused, its headers and its body
  redrive <id>               run it through today's pipeline: stored (or found already stored)
                             marks it handled; still refused prints the reasons (exit 1)
  resolve <id> --note <text> mark it handled, saying what was done (e.g. "refunded by hand")
  --help                     this text

Output is JSON on stdout. Exit 0 done, 1 not done (no such row, still refused, already
handled), 2 bad usage.`;

export interface QuarantineIo {
  out(text: string): void;
  err(text: string): void;
  now(): Date;
}

/** Runs one command against `db`; answers the exit code. */
export async function runQuarantineCommand(
  db: Db,
  argv: readonly string[],
  io: QuarantineIo,
): Promise<number> {
  const [command, ...rest] = argv;
  let parsed;
  try {
    parsed = parseArgs({
      args: [...rest],
      allowPositionals: true,
      strict: true,
      options: {
        all: { type: 'boolean' },
        limit: { type: 'string' },
        note: { type: 'string' },
      },
    });
  } catch (error) {
    return usage(io, (error as Error).message);
  }
  const { values, positionals } = parsed;
  const json = (value: unknown) => io.out(JSON.stringify(value, null, 2));
  const id = positionals[0];
  const needsId = command === 'show' || command === 'redrive' || command === 'resolve';
  if (needsId && (id === undefined || !/^\d{1,18}$/.test(id))) {
    return usage(io, `${command} needs the row's id (as listed)`);
  }
  switch (command) {
    case 'list': {
      const limit = values.limit === undefined ? 100 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
        return usage(io, '--limit must be a whole number from 1 to 10000');
      }
      json({ quarantined: await listQuarantine(db, { limit, all: values.all === true }) });
      return 0;
    }
    case 'show': {
      const row = await showQuarantined(db, id!);
      if (!row) return notDone(io, `no quarantined delivery ${id}`);
      json(row);
      return 0;
    }
    case 'redrive': {
      const result = await redriveQuarantined(db, id!, io.now);
      json({ id, ...result });
      return result.outcome === 'stored' || result.outcome === 'already-stored' ? 0 : 1;
    }
    case 'resolve': {
      const note = values.note?.trim();
      if (!note) return usage(io, 'resolve needs --note saying what was done');
      if (!(await markHandled(db, id!, 'marked', note, io.now))) {
        return notDone(io, `no open quarantined delivery ${id} (not there, or already handled)`);
      }
      json({ id, handling: 'marked', note });
      return 0;
    }
    case undefined:
    case '--help':
    case 'help':
      io.out(QUARANTINE_HELP);
      return command === undefined ? 2 : 0;
    default:
      return usage(io, `unknown command ${command}`);
  }
}

function usage(io: QuarantineIo, message: string): number {
  io.err(`${message}\n\n${QUARANTINE_HELP}`);
  return 2;
}

function notDone(io: QuarantineIo, message: string): number {
  io.err(message);
  return 1;
}
