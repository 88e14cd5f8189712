import type { ColumnType, Generated, Kysely } from 'kysely';
import type { Database, Db } from '../../lib/database/database.ts';

/**
 * The tables of migration 2026-11-22T04-00-00 (recovery and refunds), 2026-11-24T00-00-00
 * (the refunds' caller reference and dialect) and 2026-11-24T01-00-00 (recovery runs recorded
 * from their start, leases, progress through large reports, unreadable rows) and 2026-11-28T03
 * (what the report said when a resend was asked for), typed here and not added to the shared
 * `Database` (src/lib/database/database.ts, which the receiver and the feed extend with theirs):
 * the receiving pipeline never touches them, and keeping their types beside their only users
 * keeps that boundary visible. Types as the driver hands them back
 * (bigint and numeric as text, date as Date at UTC midnight is avoided by selecting ::text).
 */
type Timestamptz = ColumnType<Date, Date, Date>;

interface RecoveryAttemptsTable {
  id: Generated<string>;
  webhook_id: string;
  event_name: string | null;
  report_day: string;
  reason: 'error' | 'missing';
  attempted_at: Timestamptz;
  outcome: 'resent' | 'failed';
  http_status: number | null;
  provider_status: string | null;
  description: string | null;
  /**
   * The report row's retryCount and lastRetryDateTime (as shown) when the resend was asked for
   * (migration 2026-11-28T03; null before it, or when the report gave neither).
   */
  report_retry_count: ColumnType<number | null, number | null | undefined, never>;
  report_last_retry: ColumnType<string | null, string | null | undefined, never>;
}

interface RecoveryRunsTable {
  id: Generated<string>;
  started_at: Timestamptz;
  /** Null while the run goes on (or when its process died): migration 2026-11-24T01. */
  finished_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  days: ColumnType<string[], string[], never>;
  ok: boolean;
  summary: ColumnType<unknown, string, string>;
  /** The lease the run held (null: run without one, or before 2026-11-24T01). */
  holder: ColumnType<string | null, string | null | undefined, never>;
}

export type ReportKind = 'delivery' | 'payto';

interface RecoveryProgressTable {
  report_day: string;
  report_kind: ReportKind;
  next_skip: number;
  pass_started_at: Timestamptz;
  updated_at: Timestamptz;
}

interface RecoveryRowProblemsTable {
  id: Generated<string>;
  report_day: string;
  report_kind: ReportKind;
  row_number: number;
  reason: string;
  raw: string;
  fingerprint: string;
  first_run_id: string | null;
  last_run_id: string | null;
  first_seen_at: Timestamptz;
  last_seen_at: Timestamptz;
  times_seen: Generated<number>;
}

interface PaytoUnmatchedReceiptsTable {
  transaction_id: string;
  report_day: string;
  amount: string | null;
  date_time_text: string | null;
  report_row: ColumnType<Record<string, string>, string, string>;
  first_seen_at: Timestamptz;
  last_seen_at: Timestamptz;
  resolved_at: ColumnType<Date | null, Date | null, Date | null>;
}

export type RefundState = 'pending' | 'succeeded' | 'failed' | 'unknown';

export interface RefundsTable {
  unique_reference: string;
  /** The caller's own reference: one refund per reference, ever (migration 2026-11-24). */
  caller_reference: string;
  /** The platform description the request was last sent in (null: never sent). */
  dialect: ColumnType<'interface' | 'public' | null, 'interface' | 'public' | null | undefined>;
  transaction_id: string;
  payment_event: string;
  amount: string;
  state: RefundState;
  description: string | null;
  refund_reference: string | null;
  requested_at: Timestamptz;
  completed_at: ColumnType<Date | null, Date | null, Date | null>;
  attempts: Generated<number>;
  refund_transaction_id: string | null;
  fee_amount_excluding_gst: string | null;
  fee_amount_including_gst: string | null;
  fee_amount_gst_component: string | null;
  http_status: number | null;
  provider_status: string | null;
  status_description: string | null;
  /** Who settled a refund in doubt by hand, when, on what evidence (migration 2026-11-28). */
  resolved_by: ColumnType<string | null, string | null | undefined, string | null>;
  resolved_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  resolution_evidence: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ProviderTables {
  recovery_attempts: RecoveryAttemptsTable;
  recovery_runs: RecoveryRunsTable;
  recovery_progress: RecoveryProgressTable;
  recovery_row_problems: RecoveryRowProblemsTable;
  payto_unmatched_receipts: PaytoUnmatchedReceiptsTable;
  refunds: RefundsTable;
}

export type ProviderDb = Kysely<Database & ProviderTables>;

/** The same connection pool, seen with the provider's tables too. */
export function withProviderTables(db: Db): ProviderDb {
  return db as unknown as ProviderDb;
}
