import { sql, type Kysely, type RawBuilder } from 'kysely';
import { COLUMN_NAMES, columnName } from '../events/data-contract.ts';
import type { FieldProblem, TypedRows } from '../events/types.ts';
import type { Database } from '../../lib/database/database.ts';
import { preparedStatement, runPrepared } from '../../lib/database/prepared-statement.ts';
import { feedOutboxCte, type OutboxSource } from './feed-outbox-sql.ts';
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
): Promise<StoredOutcome[]> {
  const byKey = [...batch].sort((a, b) => compareIds(a.delivery.webhookId, b.delivery.webhookId));
  const rows = await runPrepared<StatementRow, Database>(db, STORE_STATEMENT, [
    deliveriesJson(byKey),
    Buffer.concat(byKey.map(({ delivery }) => delivery.rawBody)),
    ...typedRowsByTable(byKey),
    directCreditBatchesJson(byKey),
  ]);

  const late = await recordLateConflicts(db, byKey, rows);

  // Two identical deliveries in one batch share a key; the first claims the written row and
  // the other is a duplicate, as it would be had they arrived one after the other.
  const written = new Map(rows.map((row) => [`${row.webhook_id}/${row.body_sha256}`, row]));
  return batch.map(({ delivery, typed }) => {
    const key = `${delivery.webhookId}/${delivery.bodySha256}`;
    const row = written.get(key);
    written.delete(key);
    if (row === undefined) {
      return { inserted: false, typedRowsInserted: 0, typedRowsAlreadyStored: 0, conflicts: 0 };
    }
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
 * parameters, one per typed table and three more, and one of bytes), so each connection prepares it once (see
 * prepared-statement.ts). The bodies travel as they are: all of the batch's raw bytes in one
 * bytea parameter, which pg sends in binary, each delivery naming its slice (`body_at`,
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
): Promise<Map<string, number>> {
  const racing = new Set(rows.filter((row) => row.unresolved > 0).map((row) => row.webhook_id));
  if (racing.size === 0) return new Map();
  const found = await runPrepared<{ webhook_id: string; conflicts: number }, Database>(
    db,
    LATE_CONFLICT_STATEMENT,
    typedRowsByTable(items.filter((item) => racing.has(item.delivery.webhookId))),
  );
  return new Map(found.map((row) => [row.webhook_id, row.conflicts]));
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
function typedRowsByTable(items: readonly DeliveryToStore[]): string[] {
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
  const json = (list: TypedItem[]) => {
    list.sort(
      (a, b) =>
        compareText(a.delivery.eventName, b.delivery.eventName) || compareText(a.key, b.key),
    );
    return `[${list.map(typedItemJson).join(',')}]`;
  };
  return tables.map(json);
}

/**
 * Each InboundDirectCredit delivery's batch row (`direct_credit_batches`), as one JSON parameter:
 * `{webhook_id, body_sha256, row}`, written only for deliveries this statement inserted.
 */
function directCreditBatchesJson(items: readonly DeliveryToStore[]): string {
  const rows: string[] = [];
  for (const { delivery, typed } of items) {
    if (typed.kind !== 'direct-credits') continue;
    const { totalCount, totalAmount, recordCount } = typed.batch;
    const row = {
      webhook_id: delivery.webhookId,
      total_count: totalCount,
      total_amount: totalAmount,
      record_count: recordCount,
      received_at: delivery.receivedAt.toISOString(),
    };
    rows.push(
      `{"webhook_id":${JSON.stringify(delivery.webhookId)},` +
        `"body_sha256":"${delivery.bodySha256}","row":${JSON.stringify(row)}}`,
    );
  }
  return `[${rows.join(',')}]`;
}

interface TypedItem {
  key: string;
  delivery: NewDelivery;
  recordIndex: number;
  row: object;
}

/**
 * One typed row as JSON text: its place, its delivery's keys, and the row keyed by column name
 * (`payIdName` -> `pay_id_name`) with its delivery's keys. Written out directly: building an
 * object of some thirty columns to stringify it took twice as long, and made garbage.
 */
function typedItemJson({ delivery, recordIndex, row }: TypedItem, position: number): string {
  const webhookId = JSON.stringify(delivery.webhookId);
  const eventName = text(delivery.eventName);
  let json =
    `{"position":${position},"webhook_id":${webhookId},"body_sha256":"${delivery.bodySha256}",` +
    `"event_name":${eventName},"record_index":${recordIndex},"row":{"webhook_id":${webhookId},` +
    `"event_name":${eventName},"received_at":"${delivery.receivedAt.toISOString()}"`;
  const fields = row as Record<string, unknown>;
  for (const key in fields) json += `,${columnKey(key)}${JSON.stringify(fields[key]) ?? 'null'}`;
  return `${json}}}`;
}

/** `"pay_id_name":` for `payIdName`, for every column of the data contract, made at load. */
const COLUMN_KEYS = new Map(
  [...COLUMN_NAMES].map(([key, column]) => [key, `${JSON.stringify(column)}:`]),
);

/** `"pay_id_name":` for `payIdName`. */
function columnKey(key: string): string {
  let name = COLUMN_KEYS.get(key);
  if (name === undefined) {
    name = `${JSON.stringify(columnName(key))}:`;
    COLUMN_KEYS.set(key, name);
  }
  return name;
}

/**
 * All deliveries as one JSON parameter, built by concatenation (every piece is JSON text already,
 * so nothing is serialised twice). Each body is named by its slice of the bytes parameter: the
 * bodies, in this order, one after another.
 */
function deliveriesJson(items: readonly DeliveryToStore[]): string {
  let bodyAt = 0;
  const rows = items.map(({ delivery: x, typed }, position) => {
    const at = bodyAt;
    bodyAt += x.rawBody.length;
    return (
      `{"position":${position},"webhook_id":${x.webhookId},"event_name":${text(x.eventName)},` +
      `"modelled":${typed.kind !== 'unmodelled'},"received_at":"${x.receivedAt.toISOString()}",` +
      `"body_sha256":"${x.bodySha256}","body_at":${at},"body_bytes":${x.rawBody.length},` +
      `"content_type":${text(x.contentType)},` +
      `"headers":${JSON.stringify(x.headers)},"request_id":${text(x.requestId)},` +
      `"remote_address":${text(x.remoteAddress)},` +
      `"signing_key_fingerprint":${text(x.signingKeyFingerprint)},` +
      `"warnings":${JSON.stringify(x.warnings ?? [])}}`
    );
  });
  return `[${rows.join(',')}]`;
}

function text(value: string | null): string {
  return value === null ? 'null' : JSON.stringify(value);
}

/** Webhookids are decimal text of up to 19 digits: compare as numbers without BigInt. */
function compareIds(a: string, b: string): number {
  return a.length - b.length || compareText(a, b);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
