import { sql, type Kysely, type RawBuilder } from 'kysely';
import { COLUMN_NAMES, columnName } from '../events/data-contract.ts';
import type { FieldProblem, TypedRows } from '../events/types.ts';
import type { Database } from '../../lib/database/database.ts';
import { preparedStatement, runPrepared } from '../../lib/database/prepared-statement.ts';
import { feedOutboxCte, type OutboxSource } from './feed-outbox-sql.ts';
import { ParameterBytes, type ParameterBuffers } from './parameter-bytes.ts';
import { lateConflictCtes, TYPED_TABLES, typedRowCtes, typedRowTally } from './typed-row-sql.ts';

interface NewDelivery {
  /** Decimal text of a bigint: a JS number cannot hold every 19-digit id. */
  webhookId: string;
  eventName: string;
  receivedAt: Date;
  bodySha256: string;
  /**
   * The body, stored once: the exact bytes the signature covers. No jsonb copy (it doubled the
   * bytes and WAL per delivery); SQL reads it with delivery_body_json(raw_body).
   */
  rawBody: Buffer;
  contentType: string | null;
  headers: Record<string, string>;
  requestId: string | null;
  remoteAddress: string | null;
  signingKeyFingerprint: string | null;
  /** Optional fields stored as null, and why (at most MAX_LISTED and a count); usually []. */
  warnings?: readonly FieldProblem[];
}

export interface DeliveryToStore {
  delivery: NewDelivery;
  typed: TypedRows;
}

/** Per input, in input order: whether its delivery row was written, and its typed rows' fate. */
export interface StoredOutcome {
  inserted: boolean;
  typedRowsInserted: number;
  /** Typed rows whose business key was already stored (by another delivery, or earlier in this one). */
  typedRowsAlreadyStored: number;
  /** Of those, how many differ from the stored row (each recorded in the conflicts table). */
  conflicts: number;
}

/**
 * Writes a batch of deliveries and all their typed rows in ONE statement (one round trip, one
 * commit). Deduplication is the constraints' job: `ON CONFLICT DO NOTHING` on webhook_id, on
 * (event_name, body_sha256) (an exclusion constraint over a hash since 2026-11-24T10) and on
 * each typed table's business key, never a look-up first, so two instances storing the same Webhookid at the same moment leave exactly one row.
 * Typed rows are written only for deliveries this statement inserted (joined on the RETURNING
 * set). A typed row whose key is already stored with other content is recorded as a conflict
 * in the same statement; only a row that lost a race with a concurrent statement (whose row
 * this one cannot see) needs a second statement. Inputs are sorted by key so that concurrent
 * batches take row locks in the same order.
 */
export async function storeDeliveries(
  db: Kysely<Database>,
  batch: readonly DeliveryToStore[],
  /** Where the parameters' buffer comes from and goes back to (the batcher's); default: new. */
  buffers?: ParameterBuffers,
): Promise<StoredOutcome[]> {
  const byKey = [...batch].sort((a, b) => compareIds(a.delivery.webhookId, b.delivery.webhookId));
  // Every parameter in one buffer, each written once, in the statement's order.
  const bytes = new ParameterBytes(parameterBytesGuess(byKey), buffers);
  let rows: StatementRow[];
  try {
    rows = await runPrepared<StatementRow, Database>(db, STORE_STATEMENT, [
      deliveriesJson(bytes, byKey),
      bodiesBytes(bytes, byKey),
      ...typedRowsByTable(bytes, byKey),
      directCreditBatchesJson(bytes, byKey),
    ]);
  } finally {
    bytes.release();
  }

  const late = await recordLateConflicts(db, byKey, rows, buffers);

  // Two identical deliveries in one batch share a key; the first claims the written row and
  // the other is a duplicate, as it would be had they arrived one after the other. Webhookids
  // are unique among the rows written, so the id finds the row and the digest must match it.
  const written = new Map<string, StatementRow>();
  for (const row of rows) written.set(row.webhook_id, row);
  return batch.map(({ delivery, typed }) => {
    const row = written.get(delivery.webhookId);
    if (row === undefined || row.body_sha256 !== delivery.bodySha256) {
      return { inserted: false, typedRowsInserted: 0, typedRowsAlreadyStored: 0, conflicts: 0 };
    }
    written.delete(delivery.webhookId);
    return {
      inserted: true,
      typedRowsInserted: row.typed,
      typedRowsAlreadyStored: typed.rows.length - row.typed,
      conflicts: row.conflicts + (late.get(row.webhook_id) ?? 0),
    };
  });
}

interface StatementRow {
  webhook_id: string;
  body_sha256: string;
  typed: number;
  unresolved: number;
  conflicts: number;
}

/** The registry's typed tables (events/event-types.ts), in the statement's order. */
const ALL_TYPED = TYPED_TABLES;

/** A conflict recorded by `<alias>_conflict` is a `conflict.detected` event. */
const conflictEvents = (alias: string): OutboxSource => ({
  type: 'conflict.detected',
  from: `${alias}_conflict`,
  eventName: 'event_name',
  businessKey: 'business_key',
  webhookId: 'webhook_id',
  conflictId: 'id',
});

/**
 * A typed row inserted is its table's event. The event name is the row's own where the key
 * holds it (both rejection events share a table), else the table's one event, as a literal.
 */
const rowEvents = (t: (typeof ALL_TYPED)[number]): OutboxSource => ({
  type: t.feedType,
  from: `${t.alias}_ins`,
  eventName: (t.key as readonly string[]).includes('event_name')
    ? 'event_name'
    : `'${onlyEvent(t.contract.events)}'`,
  businessKey: t.businessKey,
  webhookId: 'webhook_id',
});

function onlyEvent(events: readonly string[]): string {
  const [event, ...others] = events;
  if (event === undefined || others.length > 0 || !/^[A-Za-z0-9]+$/.test(event)) {
    throw new Error(`a table without event_name in its key holds one event (${events.join()})`);
  }
  return event;
}

/**
 * The feed's events (docs/feed.md), from what this statement inserted: each typed row, each
 * unmodelled delivery, then each conflict (after the key's own row, as positions will be).
 */
const STORE_OUTBOX = feedOutboxCte([
  ...ALL_TYPED.map(rowEvents),
  {
    type: 'event.unmodelled',
    from: 'delivery',
    eventName: 'event_name',
    businessKey: 'webhook_id',
    webhookId: 'webhook_id',
    where: 'NOT modelled',
  },
  ...ALL_TYPED.map((t) => conflictEvents(t.alias)),
]);

/** Conflicts recorded by the follow-up statement reach the feed in that statement. */
const LATE_CONFLICT_OUTBOX = feedOutboxCte(ALL_TYPED.map((t) => conflictEvents(t.alias)));

/**
 * The store statement: one fixed text whatever the batch size (everything travels in JSON
 * parameters, one per typed table and two more, and one of bytes), so each connection prepares
 * it once (see prepared-statement.ts). All of them are written into one buffer
 * (parameter-bytes.ts) and sent in binary: the JSON ones as jsonb, the bodies as they are, all
 * of the batch's raw bytes in one bytea parameter, each delivery naming its slice (`body_at`,
 * `body_bytes`); no base64 to write in Node, nor to decode inside a JSON document. `dc_batch`
 * writes each inserted direct-credit delivery's batch totals; nothing reads it, and Postgres
 * runs a data-modifying CTE whether or not the statement reads it.
 */
function storeTemplate(
  // In the order they stand in the text: parameters are numbered $1, $2, … as they appear.
  deliveries: string,
  bodies: Buffer,
  typedRows: readonly string[],
  directCreditBatches: string,
): RawBuilder<unknown> {
  return sql`
    WITH incoming AS (
      SELECT * FROM jsonb_to_recordset(${deliveries}::jsonb) AS i(
        position int, webhook_id bigint, event_name text, modelled boolean,
        received_at timestamptz, body_sha256 text, body_at int, body_bytes int, content_type text,
        headers jsonb, request_id text, remote_address text, signing_key_fingerprint text,
        warnings jsonb)
    ),
    delivery AS (
      INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
        raw_body, content_type, headers, request_id, remote_address,
        signing_key_fingerprint, warnings)
      SELECT webhook_id, event_name, modelled, received_at, body_sha256,
        substring(${bodies}::bytea FROM body_at + 1 FOR body_bytes), content_type, headers, request_id,
        remote_address, signing_key_fingerprint, warnings
      FROM incoming ORDER BY position
      ON CONFLICT DO NOTHING
      RETURNING webhook_id, body_sha256, event_name, modelled
    ),
    ${sql.join(
      ALL_TYPED.map((t, index) => typedRowCtes(t, typedRows[index] ?? '')),
      sql`,
    `,
    )},
    dc_batch AS (
      INSERT INTO direct_credit_batches SELECT b.*
      FROM jsonb_to_recordset(${directCreditBatches}::jsonb) AS x(webhook_id bigint,
        body_sha256 text, row jsonb)
      JOIN delivery USING (webhook_id, body_sha256)
      CROSS JOIN LATERAL jsonb_populate_record(NULL::direct_credit_batches, x.row) AS b
      ON CONFLICT DO NOTHING
    ),
    ${STORE_OUTBOX},
    tally (webhook_id, inserted, unresolved, conflicts) AS (
      ${sql.join(
        ALL_TYPED.map((t) => typedRowTally(t)),
        sql` UNION ALL `,
      )}
    )
    SELECT delivery.webhook_id::text AS webhook_id, delivery.body_sha256,
      coalesce(sum(tally.inserted), 0)::int AS typed,
      coalesce(sum(tally.unresolved), 0)::int AS unresolved,
      coalesce(sum(tally.conflicts), 0)::int AS conflicts
    FROM delivery LEFT JOIN tally USING (webhook_id)
    GROUP BY delivery.webhook_id, delivery.body_sha256
  `;
}

/** The follow-up for typed rows that lost a race (see recordLateConflicts). */
function lateConflictTemplate(typedRows: readonly string[]) {
  return sql`
    WITH ${sql.join(
      ALL_TYPED.map((t, index) => lateConflictCtes(t, typedRows[index] ?? '')),
      sql`,
    `,
    )},
    ${LATE_CONFLICT_OUTBOX}
    SELECT webhook_id::text, count(*)::int AS conflicts FROM (
      ${sql.raw(ALL_TYPED.map((t) => `SELECT webhook_id FROM ${t.alias}_conflict`).join(' UNION ALL '))}
    ) c GROUP BY webhook_id
  `;
}

/** One empty JSON parameter per typed table: the statements' shape, not their values. */
const NO_TYPED_ROWS = ALL_TYPED.map(() => '');
const STORE_STATEMENT = preparedStatement(
  'store-deliveries-v3',
  storeTemplate('', Buffer.alloc(0), NO_TYPED_ROWS, ''),
  ALL_TYPED.length + 3,
);
const LATE_CONFLICT_STATEMENT = preparedStatement(
  'record-late-conflicts-v2',
  lateConflictTemplate(NO_TYPED_ROWS),
  ALL_TYPED.length,
);

/**
 * A second statement, only when some typed row was neither inserted nor matched by a row the
 * first statement could see (two instances inserting one key at the same moment).
 */
async function recordLateConflicts(
  db: Kysely<Database>,
  items: readonly DeliveryToStore[],
  rows: readonly StatementRow[],
  buffers: ParameterBuffers | undefined,
): Promise<ReadonlyMap<string, number>> {
  if (!rows.some((row) => row.unresolved > 0)) return NO_LATE_CONFLICTS;
  const racing = new Set(rows.filter((row) => row.unresolved > 0).map((row) => row.webhook_id));
  const racers = items.filter((item) => racing.has(item.delivery.webhookId));
  const bytes = new ParameterBytes(parameterBytesGuess(racers), buffers);
  try {
    const found = await runPrepared<{ webhook_id: string; conflicts: number }, Database>(
      db,
      LATE_CONFLICT_STATEMENT,
      typedRowsByTable(bytes, racers),
    );
    return new Map(found.map((row) => [row.webhook_id, row.conflicts]));
  } finally {
    bytes.release();
  }
}

const NO_LATE_CONFLICTS: ReadonlyMap<string, number> = new Map();

/**
 * Room for a batch's parameters: its bodies, and each delivery's row, headers and typed rows
 * (about the size of its body again, plus their keys). A guess: more is made when needed.
 */
function parameterBytesGuess(items: readonly DeliveryToStore[]): number {
  let bytes = 256;
  for (const { delivery } of items) bytes += 2 * delivery.rawBody.length + 2048;
  return bytes;
}

/** A typed table's place among the parameters, and its rows' business key, by `TypedRows` kind. */
const TABLE_OF_KIND = new Map(
  ALL_TYPED.map((t, index) => [t.kind as TypedRows['kind'], { index, rowKey: t.rowKey }]),
);

/**
 * Each typed table's rows as one JSON parameter (in the order of the registry's typed tables):
 * `{position, webhook_id, body_sha256, event_name, record_index, row}`, `row` keyed by column
 * name. Sorted by business key, so concurrent statements lock keys in one order; `position` is
 * that order.
 */
function typedRowsByTable(bytes: ParameterBytes, items: readonly DeliveryToStore[]): Buffer[] {
  const tables: TypedItem[][] = ALL_TYPED.map(() => []);
  for (const { delivery, typed } of items) {
    const table = TABLE_OF_KIND.get(typed.kind);
    if (table === undefined) continue; // unmodelled: no typed rows
    const list = tables[table.index] as TypedItem[];
    typed.rows.forEach((row, recordIndex) => {
      const key = (row as Readonly<Record<string, string>>)[table.rowKey] as string;
      list.push({ key, delivery, recordIndex, row });
    });
  }
  return tables.map((list) => {
    list.sort(
      (a, b) =>
        compareText(a.delivery.eventName, b.delivery.eventName) || compareText(a.key, b.key),
    );
    bytes.beginJsonb().ascii('[');
    list.forEach((item, position) => {
      if (position > 0) bytes.ascii(',');
      typedItemJson(bytes, item, position);
    });
    return bytes.ascii(']').end();
  });
}

/**
 * Each InboundDirectCredit delivery's batch row (`direct_credit_batches`), as one JSON parameter:
 * `{webhook_id, body_sha256, row}`, written only for deliveries this statement inserted.
 */
function directCreditBatchesJson(bytes: ParameterBytes, items: readonly DeliveryToStore[]): Buffer {
  bytes.beginJsonb().ascii('[');
  let first = true;
  for (const { delivery, typed } of items) {
    if (typed.kind !== 'direct-credits') continue;
    if (!first) bytes.ascii(',');
    first = false;
    const { totalCount, totalAmount, recordCount } = typed.batch;
    bytes
      .ascii('{"webhook_id":')
      .string(delivery.webhookId)
      .ascii(',"body_sha256":')
      .string(delivery.bodySha256)
      .ascii(',"row":{"webhook_id":')
      .string(delivery.webhookId)
      .ascii(',"total_count":')
      .number(totalCount)
      .ascii(',"total_amount":')
      .nullableString(totalAmount)
      .ascii(',"record_count":')
      .number(recordCount)
      .ascii(',"received_at":')
      .string(delivery.receivedAt.toISOString())
      .ascii('}}');
  }
  return bytes.ascii(']').end();
}

interface TypedItem {
  key: string;
  delivery: NewDelivery;
  recordIndex: number;
  row: object;
}

/**
 * One typed row as JSON: its place, its delivery's keys, and the row keyed by column name
 * (`payIdName` -> `pay_id_name`) with its delivery's keys. Written out directly: building an
 * object of some thirty columns to stringify it took twice as long, and made garbage.
 */
function typedItemJson(
  bytes: ParameterBytes,
  { delivery, recordIndex, row }: TypedItem,
  position: number,
): void {
  bytes
    .ascii('{"position":')
    .number(position)
    .ascii(',"webhook_id":')
    .string(delivery.webhookId)
    .ascii(',"body_sha256":')
    .string(delivery.bodySha256)
    .ascii(',"event_name":')
    .string(delivery.eventName)
    .ascii(',"record_index":')
    .number(recordIndex)
    .ascii(',"row":{"webhook_id":')
    .string(delivery.webhookId)
    .ascii(',"event_name":')
    .string(delivery.eventName)
    .ascii(',"received_at":')
    .string(delivery.receivedAt.toISOString());
  const fields = row as Record<string, unknown>;
  for (const key in fields) {
    bytes.ascii(columnKey(key));
    const value = fields[key];
    if (typeof value === 'string') bytes.string(value);
    else if (value === null || value === undefined) bytes.ascii('null');
    else bytes.json(value);
  }
  bytes.ascii('}}');
}

/** `,"pay_id_name":` for `payIdName`, for every column of the data contract, made at load. */
const COLUMN_KEYS = new Map(
  [...COLUMN_NAMES].map(([key, column]) => [key, `,${JSON.stringify(column)}:`]),
);

/** `,"pay_id_name":` for `payIdName`. */
function columnKey(key: string): string {
  let name = COLUMN_KEYS.get(key);
  if (name === undefined) {
    name = `,${JSON.stringify(columnName(key))}:`;
    COLUMN_KEYS.set(key, name);
  }
  return name;
}

/**
 * All deliveries as one JSON parameter. Each body is named by its slice of the bytes parameter:
 * the bodies, in this order, one after another.
 */
function deliveriesJson(bytes: ParameterBytes, items: readonly DeliveryToStore[]): Buffer {
  bytes.beginJsonb().ascii('[');
  let bodyAt = 0;
  items.forEach(({ delivery: x, typed }, position) => {
    if (position > 0) bytes.ascii(',');
    bytes
      .ascii('{"position":')
      .number(position)
      // A bigint as a JSON number: jsonb holds every digit (numeric), unlike a double.
      .ascii(',"webhook_id":')
      .ascii(x.webhookId)
      .ascii(',"event_name":')
      .string(x.eventName)
      .ascii(',"modelled":')
      .boolean(typed.kind !== 'unmodelled')
      .ascii(',"received_at":')
      .string(x.receivedAt.toISOString())
      .ascii(',"body_sha256":')
      .string(x.bodySha256)
      .ascii(',"body_at":')
      .number(bodyAt)
      .ascii(',"body_bytes":')
      .number(x.rawBody.length)
      .ascii(',"content_type":')
      .nullableString(x.contentType)
      .ascii(',"headers":{');
    let first = true;
    for (const name in x.headers) {
      if (!first) bytes.ascii(',');
      first = false;
      bytes
        .string(name)
        .ascii(':')
        .string(x.headers[name] as string);
    }
    bytes
      .ascii('},"request_id":')
      .nullableString(x.requestId)
      .ascii(',"remote_address":')
      .nullableString(x.remoteAddress)
      .ascii(',"signing_key_fingerprint":')
      .nullableString(x.signingKeyFingerprint)
      .ascii(',"warnings":');
    if (x.warnings === undefined || x.warnings.length === 0) bytes.ascii('[]');
    else bytes.json(x.warnings);
    bytes.ascii('}');
    bodyAt += x.rawBody.length;
  });
  return bytes.ascii(']').end();
}

/** The bodies, one after another, as one bytea parameter (see deliveriesJson). */
function bodiesBytes(bytes: ParameterBytes, items: readonly DeliveryToStore[]): Buffer {
  bytes.beginBytea();
  for (const { delivery } of items) bytes.raw(delivery.rawBody);
  return bytes.end();
}

/** Webhookids are decimal text of up to 19 digits: compare as numbers without BigInt. */
function compareIds(a: string, b: string): number {
  return a.length - b.length || compareText(a, b);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
