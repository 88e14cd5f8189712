import { contractModel, type ModelOptions } from './contract-model.ts';
import {
  contractForTable,
  type ContractOf,
  type TypedRowContract,
  type TypedTableName,
} from './data-contract.ts';
import type { EventModel } from './types.ts';

/**
 * The registry of event types: one entry per modelled event, naming everything about it that
 * lives outside its fields. The fields themselves, the columns they fill and the shape of the
 * body are the data contract (data-contract.ts); the table is created by a migration. Everything
 * else that used to list the event types derives from here or from the contract
 * (docs/architecture.md, "Adding an event type"):
 * - each event's parser, built from its table's contract (contract-model.ts), found by event
 *   name (registry.ts);
 * - the row types and `TypedRows` (types.ts), and the typed tables' Kysely interfaces
 *   (storage/tables.ts);
 * - the typed tables the store statement writes, with their parameters, CTEs and outbox rows
 *   (storage/typed-row-sql.ts, storage/store-deliveries.ts);
 * - the feed's event types (storage/feed-outbox-sql.ts) and the rows its bodies are rendered
 *   from (src/feed/render-events.ts);
 * - the rows a captured delivery counts on a clean replay (capture/expected-answer.ts,
 *   capture/clean-replay-expectation.ts, tools/capture/export-target-rows.ts);
 * - what the prune does to them: nothing (the typed rows are the ledger; the prune clears only
 *   the delivery's raw request, storage/prune-steps.ts, and a test checks that no prune step
 *   names a typed table).
 * test/integration/receiver/event-types-schema.test.ts checks every entry against the migrated
 * schema.
 */

/** A typed table as the store statement, the feed and the capture files use it. */
export interface TypedTableSpec {
  readonly table: TypedTableName;
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

/** A typed table with its contract, and its rows' `TypedRows` kind, from the data contract. */
type RegisteredTable<T extends TypedTableSpec = TypedTableSpec> = T & {
  readonly contract: TypedRowContract;
  readonly kind: ContractOf<T['table']>['kind'];
  /** The row key (camelCase) of the business key column: what rows are sorted by. */
  readonly rowKey: string;
};

function typedTable<const T extends TypedTableSpec>(spec: T): RegisteredTable<T> {
  const contract: TypedRowContract = contractForTable(spec.table);
  const rowKey = spec.businessKey.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
  return Object.freeze({ ...spec, contract, kind: contract.kind, rowKey }) as RegisteredTable<T>;
}

const NPP_PAYMENTS = typedTable({
  table: 'npp_payments',
  alias: 'pay',
  key: ['transaction_id'],
  businessKey: 'transaction_id',
  feedType: 'payment.received',
  capture: 'counted',
  retention: 'ledger',
});

const PAYTO_PAYMENTS = typedTable({
  table: 'payto_payments',
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
  alias: 'rej',
  key: ['event_name', 'rejection_id'],
  businessKey: 'rejection_id',
  feedType: 'credit_rejection.received',
  capture: 'counted',
  retention: 'ledger',
});

const DIRECT_CREDITS = typedTable({
  table: 'direct_credits',
  alias: 'dc',
  key: ['transaction_id'],
  businessKey: 'transaction_id',
  feedType: 'direct_credit.received',
  // Added after the capture file format; a captured file counts only its conflicts.
  capture: 'conflicts-only',
  retention: 'ledger',
});

/** One modelled event: its parser (with its canonical name) and the typed table it fills. */
interface EventTypeEntry<T extends RegisteredTable = RegisteredTable> {
  readonly model: EventModel;
  readonly typed: T;
}

/** An event (its canonical name) whose records fill `typed`, parsed as its contract says. */
function eventType<const T extends RegisteredTable>(
  name: string,
  typed: T,
  options?: ModelOptions,
): EventTypeEntry<T> {
  return Object.freeze({ model: contractModel(name, typed.contract, options), typed });
}

/**
 * Every modelled event. The order is the store statement's: a table's CTEs and outbox rows
 * follow the first event that names it.
 */
export const EVENT_TYPES = Object.freeze([
  eventType('NPPReceivePayment', NPP_PAYMENTS),
  // The published schema marks the refund fields required on it; they are not (nothing is
  // required beyond TransactionId and Amount).
  eventType('PayToReceivePayment', PAYTO_PAYMENTS),
  // An array per contract and published spec.
  eventType('InboundDirectCreditRejections', CREDIT_REJECTIONS),
  // An array per contract, but the provider's own published example is a single object.
  eventType('NPPCreditRejections', CREDIT_REJECTIONS, { acceptsSingleRecord: true }),
  eventType('InboundDirectCredit', DIRECT_CREDITS),
]);

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
