import type { ColumnType, Generated } from 'kysely';
import type { ContractOf, TypedRow, TypedTableName } from '../events/data-contract.ts';

/**
 * The receiver's tables as Kysely sees them, matching migrations/, added to src/lib's
 * `Database` by declaration merging (src/lib knows no module). Column types are what the driver
 * hands back: bigint, numeric and timestamp (without zone) come back as strings, so nothing is
 * rounded or shifted into the process's time zone on the way out.
 */

type Timestamptz = ColumnType<Date, Date, never>;

/** `payIdName` -> `pay_id_name`, as a type (data-contract.ts' `columnName`). */
type Snake<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${Snake<Tail>}`
  : S;

/** A row as its table's columns. */
export type Columns<Row> = { [K in keyof Row & string as Snake<K>]: Row[K] };

/** What storage adds to a typed row from its delivery (data-contract.ts' `deliveryColumns`). */
interface DeliveryColumns {
  webhook_id: string;
  received_at: Timestamptz;
  event_name: string;
}

/**
 * A typed table, derived from the data contract: one column per column of its rows (a field,
 * or a date-time's two), and the delivery's columns its contract names. Nothing here is written
 * per table; test/integration/receiver/event-types-schema.test.ts checks the contract, and so
 * these, against the migrated schema.
 */
type TypedTable<T extends TypedTableName> = Columns<TypedRow<T>> &
  Pick<DeliveryColumns, ContractOf<T>['deliveryColumns'][number]>;

export type TypedTables = { [T in TypedTableName]: TypedTable<T> };

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

interface QuarantinedDeliveriesTable {
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

declare module '../../lib/database/database.ts' {
  interface Database extends TypedTables {
    webhook_deliveries: WebhookDeliveriesTable;
    direct_credit_batches: DirectCreditBatchesTable;
    conflicts: ConflictsTable;
    quarantined_deliveries: QuarantinedDeliveriesTable;
  }
}
