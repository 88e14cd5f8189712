import { contractForTable, type TypedRowContract, type TypedTableName } from './data-contract.ts';
import { inboundDirectCreditRejections, nppCreditRejections } from './credit-rejection.ts';
import { inboundDirectCredit } from './direct-credit.ts';
import { nppReceivePayment, payToReceivePayment } from './npp-receive-payment.ts';
import type { EventModel, TypedRows } from './types.ts';

/**
 * The registry of event types: one entry per modelled event, naming everything about it that
 * lives outside its fields. The fields themselves, and the columns they fill, are the data
 * contract (data-contract.ts); the table is created by a migration. Everything else that used
 * to list the event types derives from here (docs/architecture.md, "Adding an event type"):
 * - the models found by event name (registry.ts);
 * - the typed tables the store statement writes, with their parameters, CTEs and outbox rows
 *   (storage/typed-row-sql.ts, storage/store-deliveries.ts);
 * - the feed's event types (storage/feed-outbox-sql.ts) and the rows its bodies are rendered
 *   from (src/feed/render-events.ts);
 * - the rows a captured delivery counts on a clean replay (capture/expected-answer.ts,
 *   capture/clean-replay-expectation.ts, tools/capture/export-target-rows.ts);
 * - what the prune does to them: nothing (the typed rows are the ledger; the prune clears only
 *   the delivery's raw request, src/operations/retention/prune-steps.ts, and a test checks that
 *   no prune step names a typed table).
 * test/integration/receiver/event-types-schema.test.ts checks every entry against the migrated
 * schema.
 */

/** A typed table as the store statement, the feed and the capture files use it. */
export interface TypedTableSpec {
  readonly table: TypedTableName;
  /** The parser's `TypedRows` kind for rows of this table. */
  readonly kind: Exclude<TypedRows['kind'], 'unmodelled'>;
  /** Prefix of the store statement's CTEs for this table (`pay_ins`, `pay_conflict`). */
  readonly alias: string;
  /** The unique business key, in column order (the table's unique constraint). */
  readonly key: readonly string[];
  /** The key column an operator searches by and the feed names (the other is event_name). */
  readonly businessKey: string;
  /** The feed event written for each row inserted (docs/feed.md). */
  readonly feedType: string;
  /**
   * In a captured delivery's `rows` (the file format, docs/captured-fixtures.md): `counted`, or
   * `conflicts-only` for a table the format does not name (only its conflicts are counted).
   */
  readonly capture: 'counted' | 'conflicts-only';
  /** Retention: typed rows are the ledger, kept for ever (docs/retention.md). */
  readonly retention: 'ledger';
}

/** A typed table with its columns from the data contract. */
type RegisteredTable<T extends TypedTableSpec = TypedTableSpec> = T & {
  readonly contract: TypedRowContract;
  /** The row key (camelCase) of the business key column: what rows are sorted by. */
  readonly rowKey: string;
};

function typedTable<const T extends TypedTableSpec>(spec: T): RegisteredTable<T> {
  const contract = contractForTable(spec.table);
  const rowKey = spec.businessKey.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
  return Object.freeze({ ...spec, contract, rowKey });
}

const NPP_PAYMENTS = typedTable({
  table: 'npp_payments',
  kind: 'npp-payment',
  alias: 'pay',
  key: ['transaction_id'],
  businessKey: 'transaction_id',
  feedType: 'payment.received',
  capture: 'counted',
  retention: 'ledger',
});

const PAYTO_PAYMENTS = typedTable({
  table: 'payto_payments',
  kind: 'payto-payment',
  alias: 'payto',
  key: ['transaction_id'],
  businessKey: 'transaction_id',
  feedType: 'payto_payment.received',
  capture: 'counted',
  retention: 'ledger',
});

/** Both rejection events: one table, keyed by event name and rejection id. */
const CREDIT_REJECTIONS = typedTable({
  table: 'credit_rejections',
  kind: 'credit-rejections',
  alias: 'rej',
  key: ['event_name', 'rejection_id'],
  businessKey: 'rejection_id',
  feedType: 'credit_rejection.received',
  capture: 'counted',
  retention: 'ledger',
});

const DIRECT_CREDITS = typedTable({
  table: 'direct_credits',
  kind: 'direct-credits',
  alias: 'dc',
  key: ['transaction_id'],
  businessKey: 'transaction_id',
  feedType: 'direct_credit.received',
  // Added after the capture file format; a captured file counts only its conflicts.
  capture: 'conflicts-only',
  retention: 'ledger',
});

/** One modelled event: its parser (with its canonical name) and the typed table it fills. */
export interface EventTypeEntry {
  readonly model: EventModel;
  readonly typed: RegisteredTable;
}

/**
 * Every modelled event. The order is the store statement's: a table's CTEs and outbox rows
 * follow the first event that names it.
 */
export const EVENT_TYPES = Object.freeze([
  { model: nppReceivePayment, typed: NPP_PAYMENTS },
  { model: payToReceivePayment, typed: PAYTO_PAYMENTS },
  { model: inboundDirectCreditRejections, typed: CREDIT_REJECTIONS },
  { model: nppCreditRejections, typed: CREDIT_REJECTIONS },
  { model: inboundDirectCredit, typed: DIRECT_CREDITS },
] as const satisfies readonly EventTypeEntry[]);

/** A registered typed table, with its literal names. */
export type TypedTableEntry = (typeof EVENT_TYPES)[number]['typed'];

/** The typed tables, each once, in the order of the events. */
export const TYPED_TABLES: readonly TypedTableEntry[] = Object.freeze([
  ...new Set(EVENT_TYPES.map((entry) => entry.typed)),
]);

/** The feed event types of typed rows ('payment.received', …). */
export type TypedFeedEventType = TypedTableEntry['feedType'];

/** The typed tables a captured delivery's `rows` name. */
export type CapturedTypedTable = Extract<TypedTableEntry, { capture: 'counted' }>['table'];
