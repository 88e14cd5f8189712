import { sql } from 'kysely';
import type { Db } from '../../lib/database/database.ts';

/**
 * Money that waits for a person: rows nobody but an operator will close. Each is a count and the
 * age of the oldest, read from the database (the same numbers on every instance).
 */
export interface MoneyStates {
  /** Authenticated deliveries refused and kept (quarantined_deliveries, handled_at null). */
  quarantine: WaitingRows;
  /** Business keys re-sent with other content, not yet resolved (open_conflicts). */
  conflicts: WaitingRows;
  /** Refunds the platform may have paid or may be paying: the amount stays held. */
  refundsInDoubt: Record<RefundInDoubtState, WaitingRows>;
  /** PayTo receipts in the platform's report that no webhook brought, not yet resolved. */
  paytoUnmatched: WaitingRows;
}

export interface WaitingRows {
  /** Counted up to MONEY_STATES_COUNT_CAP. */
  open: number;
  /** Seconds since the oldest open row began waiting; 0 when none is open. */
  oldestAgeSeconds: number;
}

export const REFUND_IN_DOUBT_STATES = ['pending', 'unknown'] as const;
type RefundInDoubtState = (typeof REFUND_IN_DOUBT_STATES)[number];

/**
 * Counts stop here: a gauge at the cap says "at least this many", which is all an alert needs,
 * and keeps each read bounded whatever piles up.
 */
const MONEY_STATES_COUNT_CAP = 100_000;

/** One waiting kind: its table, what makes a row open, and when it began waiting. */
interface WaitingQuery {
  column: string;
  table: string;
  open: string;
  since: string;
}

const QUERIES: WaitingQuery[] = [
  // Index quarantined_deliveries_open (received_at, id) WHERE handled_at IS NULL.
  {
    column: 'quarantine',
    table: 'quarantined_deliveries',
    open: 'handled_at IS NULL',
    since: 'received_at',
  },
  // Index conflicts_open (detected_at) WHERE resolved_at IS NULL.
  { column: 'conflicts', table: 'conflicts', open: 'resolved_at IS NULL', since: 'detected_at' },
  // Index refunds_in_doubt (state, requested_at) WHERE state IN ('pending', 'unknown'). A refund
  // is in doubt from its request on: the age is how long its amount has been held.
  ...REFUND_IN_DOUBT_STATES.map((state) => ({
    column: `refunds_${state}`,
    table: 'refunds',
    open: `state = '${state}'`,
    since: 'requested_at',
  })),
  // Index payto_unmatched_receipts_open_since (first_seen_at) WHERE resolved_at IS NULL.
  {
    column: 'payto',
    table: 'payto_unmatched_receipts',
    open: 'resolved_at IS NULL',
    since: 'first_seen_at',
  },
];

/**
 * The statement behind `readMoneyStates`, built from constants only (no parameters): the text the
 * plan tests read. Each part reads its partial index: a capped count, and the first entry in
 * waiting order. An age is never negative (a row written by an instance whose clock runs ahead).
 */
export function moneyStatesSql(): string {
  const parts = QUERIES.flatMap((q) => [
    `(SELECT count(*) FROM (SELECT 1 FROM ${q.table} WHERE ${q.open} LIMIT ${MONEY_STATES_COUNT_CAP}) AS c) AS ${q.column}_open`,
    `(SELECT greatest(extract(epoch FROM now() - ${q.since}), 0) FROM ${q.table}
       WHERE ${q.open} ORDER BY ${q.since} LIMIT 1) AS ${q.column}_oldest`,
  ]);
  return `SELECT\n  ${parts.join(',\n  ')}`;
}

/**
 * Reads every money state in one statement, inside a transaction whose statement timeout is
 * `timeoutMs`: a scrape never waits on a slow database longer than that.
 */
export async function readMoneyStates(
  db: Db,
  options: { timeoutMs: number },
): Promise<MoneyStates> {
  const timeout = Math.max(1, Math.round(options.timeoutMs));
  const row = await db.transaction().execute(async (trx) => {
    await sql.raw(`SET LOCAL statement_timeout = ${timeout}`).execute(trx);
    const result = await sql.raw<Record<string, string | null>>(moneyStatesSql()).execute(trx);
    return result.rows[0] ?? {};
  });
  const waiting = (column: string): WaitingRows => ({
    open: Number(row[`${column}_open`] ?? 0),
    oldestAgeSeconds: Number(row[`${column}_oldest`] ?? 0),
  });
  return {
    quarantine: waiting('quarantine'),
    conflicts: waiting('conflicts'),
    refundsInDoubt: { pending: waiting('refunds_pending'), unknown: waiting('refunds_unknown') },
    paytoUnmatched: waiting('payto'),
  };
}
