import { PostgresDialect, type ColumnType, type Generated, type Kysely } from 'kysely';
import pg from 'pg';
import { PooledKysely } from './prepared-statement.ts';
import { databaseSettings } from './settings.ts';

/**
 * One interface per table, matching migrations/. Column types are what the driver hands back:
 * bigint, numeric and timestamp (without zone) come back as strings so nothing is rounded or
 * shifted into the process's time zone on the way out.
 */

type Timestamptz = ColumnType<Date, Date, never>;

interface WebhookDeliveriesTable {
  webhook_id: string;
  event_name: string;
  modelled: boolean;
  received_at: Timestamptz;
  body_sha256: string;
  /** Null once retention has pruned the delivery (migration 2026-11-24T06-00-00). */
  raw_body: Buffer | null;
  payload: ColumnType<unknown, string | null, never>;
  content_type: string | null;
  headers: ColumnType<Record<string, string> | null, string, never>;
  request_id: string | null;
  remote_address: string | null;
  signing_key_fingerprint: string | null;
  /** [{path, message}]: optional fields stored as null because they could not be read. */
  warnings: ColumnType<{ path: string; message: string }[], string | undefined, never>;
  /** When retention cleared raw_body, headers and payload (null: not yet). */
  pruned_at: ColumnType<Date | null, never, never>;
}

/**
 * The typed tables: one row per payment or rejection record, one column per field of the data
 * contract (src/receiver/events/data-contract.ts; src/receiver/storage/typed-row-sql.ts checks
 * at compile time that the interfaces below declare exactly its columns, with its types).
 */
export type TypedTableName =
  'npp_payments' | 'payto_payments' | 'credit_rejections' | 'direct_credits';

interface NppPaymentsTable {
  transaction_id: string;
  webhook_id: string;
  end_to_end_id: string | null;
  amount: string;
  date_time_local: string | null;
  date_time_text: string | null;
  receipt_number: string | null;
  pay_id: string | null;
  remitter_name: string | null;
  bsb: string | null;
  account_number: string | null;
  remittance_information: string | null;
  refund_inbound_amount: string | null;
  refund_amount: string | null;
  refund_id: string | null;
  received_at: Timestamptz;
  account_name: string | null;
  pay_id_name: string | null;
  source_bsb: string | null;
  source_account_number: string | null;
  source_account_name: string | null;
  category_purpose_code: string | null;
  reconciliation_rule_reference: string | null;
  creditor_reference_information: string | null;
  ultimate_creditor_name: string | null;
  usi_number: string | null;
  usi_creditor_scheme: string | null;
  ledger_account_number: string | null;
  ledger_unique_reference: string | null;
}

/** PayToReceivePayment: the NPPReceivePayment columns and three of its own. */
interface PayToPaymentsTable extends NppPaymentsTable {
  mms_id: string | null;
  initiating_party_name: string | null;
  npp_instruction_id: string | null;
}

interface CreditRejectionsTable {
  event_name: string;
  rejection_id: string;
  webhook_id: string;
  batch_id: string | null;
  date_time_local: string | null;
  date_time_text: string | null;
  transaction_type: string | null;
  amount: string;
  bsb: string | null;
  account_number: string | null;
  account_name: string | null;
  reference: string | null;
  remitter_name: string | null;
  rejection_reason: string | null;
  received_at: Timestamptz;
  transaction_code: string | null;
  status: string | null;
  pay_id: string | null;
  pay_id_name: string | null;
  end_to_end_id: string | null;
  source_bsb: string | null;
  source_account_number: string | null;
  source_account_name: string | null;
  indicator: string | null;
  withholding_tax_amount: string | null;
  name_of_user_supplying_file: string | null;
  number_of_user_supplying_file: string | null;
  description_of_entries_on_file: string | null;
  ledger_account_number: string | null;
  ledger_unique_reference: string | null;
}

/** One InboundDirectCredit record (an element of its batch's DirectCreditDetails). */
interface DirectCreditsTable {
  transaction_id: string;
  webhook_id: string;
  /** Text, leading zeros kept. */
  batch_id: string | null;
  date_time_local: string | null;
  date_time_text: string | null;
  bsb: string | null;
  account_number: string | null;
  account_name: string | null;
  transaction_code: string | null;
  amount: string;
  lodgement_ref: string | null;
  remitter_name: string | null;
  name_of_user_supplying_file: string | null;
  number_of_user_supplying_file: string | null;
  description_of_entries_on_file: string | null;
  indicator: string | null;
  withholding_tax_amount: string | null;
  source_bsb: string | null;
  source_account_number: string | null;
  receipt_number: string | null;
  received_at: Timestamptz;
}

/** One InboundDirectCredit delivery's batch: its stated totals and how many records it held. */
interface DirectCreditBatchesTable {
  webhook_id: string;
  total_count: number | null;
  total_amount: string | null;
  record_count: number;
  received_at: Timestamptz;
}

/** A business key re-sent with other content; the first typed row is never changed. */
interface ConflictsTable {
  id: Generated<string>;
  table_name: TypedTableName;
  event_name: string;
  business_key: string;
  first_webhook_id: string;
  webhook_id: string;
  /** Position of the record in its body (0 for a payment). */
  record_index: number;
  differences: ColumnType<{ field: string; first: unknown; second: unknown }[], string, never>;
  detected_at: Generated<Date>;
  resolved_at: Date | null;
  resolution: string | null;
}

export interface QuarantinedDeliveriesTable {
  id: Generated<string>;
  event_name: string;
  webhook_id_header: string | null;
  webhook_id: string | null;
  received_at: Timestamptz;
  body_sha256: string;
  raw_body: Buffer;
  content_type: string | null;
  headers: ColumnType<Record<string, string>, string, never>;
  reasons: ColumnType<{ path: string; message: string }[], string, never>;
  request_id: string | null;
  remote_address: string | null;
  signing_key_fingerprint: string | null;
  /** How an operator dealt with it (migration 2026-11-24T02-00-00); null while open. */
  handled_at: ColumnType<Date | null, never, Date | null>;
  handling: ColumnType<'redriven' | 'marked' | null, never, 'redriven' | 'marked' | null>;
  handled_note: ColumnType<string | null, never, string | null>;
  /** When retention cleared a handled row's body and headers (null: not yet). */
  pruned_at: ColumnType<Date | null, never, Date | null>;
}

/** The feed's outbox (migrations 2026-11-22T03-00-00, 2026-11-24T08-00-00): one row per event. */
interface FeedEventsTable {
  id: Generated<string>;
  /** Null until the assigner numbers it, after its commit. */
  position: string | null;
  type: string;
  event_name: string;
  business_key: string;
  webhook_id: string | null;
  conflict_id: string | null;
  quarantine_id: string | null;
  created_at: Generated<Date>;
  relay_state: 'pending' | 'sent' | 'dead';
  attempts: number;
  first_attempt_at: Date | null;
  next_attempt_at: Date | null;
  claimed_by: string | null;
  claimed_until: Date | null;
  last_error: string | null;
  sent_at: Date | null;
  dead_at: Date | null;
}

/** One row: whether every instance's relay is paused. */
interface FeedRelayControlTable {
  paused: boolean;
  changed_at: Date;
  reason: string | null;
}

export interface Database {
  webhook_deliveries: WebhookDeliveriesTable;
  npp_payments: NppPaymentsTable;
  payto_payments: PayToPaymentsTable;
  credit_rejections: CreditRejectionsTable;
  direct_credits: DirectCreditsTable;
  direct_credit_batches: DirectCreditBatchesTable;
  conflicts: ConflictsTable;
  quarantined_deliveries: QuarantinedDeliveriesTable;
  feed_events: FeedEventsTable;
  feed_relay_control: FeedRelayControlTable;
}

export type Db = Kysely<Database>;

/**
 * The one place that says which Postgres types come back as text rather than parsed:
 * `timestamp without time zone` (a Sydney wall-clock time; parsed, it would be shifted into the
 * process's zone). pg already leaves bigint and numeric as text. A statement that needs the exact
 * text of anything else (an instant, jsonb) casts it in SQL (`::text`), so what it reads does not
 * depend on the pool it runs on.
 */
const TIMESTAMP_WITHOUT_ZONE = 1114;
const keepText = (value: string) => value;

export interface DatabaseOptions {
  url: string;
  poolMax: number;
  /** Give up connecting after this long, so a dead database becomes a 5xx rather than a hang. */
  connectionTimeoutMs?: number;
  /**
   * Server-side statement timeout. The delivery statements also time out on our side, a little
   * later (see prepared-statement.ts), for a connection that goes silent.
   */
  statementTimeoutMs?: number;
  /** An idle pooled connection died (database restart); the pool replaces it. */
  onIdleClientError?: (error: Error) => void;
}

export function createDatabase(options: DatabaseOptions): Db {
  return createDatabaseWithPool(options).db;
}

/** The same, also handing back the pool (for its statistics in metrics). */
export function createDatabaseWithPool(options: DatabaseOptions): { db: Db; pool: pg.Pool } {
  // Left out (tests, tools): the variables' defaults, from their one declaration.
  const statementTimeoutMs =
    options.statementTimeoutMs ?? databaseSettings.defaults.databaseStatementTimeoutMs;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolMax,
    connectionTimeoutMillis:
      options.connectionTimeoutMs ?? databaseSettings.defaults.databaseConnectionTimeoutMs,
    statement_timeout: statementTimeoutMs,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === TIMESTAMP_WITHOUT_ZONE
          ? keepText
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // Without a listener, an idle client losing its connection would crash the process.
  pool.on('error', (error) => options.onIdleClientError?.(error));
  // pg-pool listens only on idle clients. A checked-out client whose socket dies mid-query
  // emits 'error' too; unheard, that would crash every instance during a database outage.
  // The query in flight already fails with the same error (and its delivery gets a 500).
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  const dialect = { dialect: new PostgresDialect({ pool }) };
  return { db: new PooledKysely<Database>(pool, dialect, statementTimeoutMs), pool };
}
