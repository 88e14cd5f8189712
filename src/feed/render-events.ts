import { sql, type RawBuilder } from 'kysely';
import { TYPED_TABLES, type FeedEventType, type TypedTableEntry } from '../receiver/contract.ts';
import type { Db } from '../lib/database/database.ts';
import { feedBody, type StoredBody } from './delivery-body.ts';
import { jsonText, RawJson, type JsonValue } from './json-text.ts';
import { sydneyIso } from '../lib/sydney-time.ts';

/** An outbox row as the feed reads it (bigints and instants as text). */
export interface FeedEventRow {
  id: string;
  position: string;
  type: FeedEventType;
  event_name: string;
  business_key: string;
  /** Null only for a quarantine event whose delivery's Webhookid could not be read. */
  webhook_id: string | null;
  conflict_id: string | null;
  /** quarantine.opened / quarantine.resolved: the quarantined_deliveries row. */
  quarantine_id: string | null;
  created_at: string;
}

export interface RenderedEvent {
  /** `evt_<id>`: the Standard Webhooks `webhook-id`, the same on every attempt. */
  id: string;
  position: string;
  /** The JSON body, exactly the bytes sent or returned. */
  body: string;
}

type SourceRow = Record<string, unknown>;

/**
 * How a column's value appears in `fields`: as text (text, bigint, numeric: exact), a Sydney
 * wall-clock time with its offset, a UTC instant, raw JSON, or the number it is.
 */
type ColumnKind = 'text' | 'exact' | 'wall-clock' | 'instant' | 'json' | 'number';

/** Kinds read from the exact text Postgres prints (cast in the statement, whatever the pool). */
const AS_TEXT: ReadonlySet<ColumnKind> = new Set(['exact', 'wall-clock', 'instant', 'json']);

/** Per type, the rows an event describes, and how a row and an event are matched. */
interface Source {
  /** Column name to kind: every column the statement reads. */
  kinds: ReadonlyMap<string, ColumnKind>;
  query(db: Db, events: readonly FeedEventRow[]): Promise<{ rows: SourceRow[] }>;
  rowKey(row: SourceRow): string;
  eventKey(event: FeedEventRow): string;
}

/** The name a column's text travels under beside the column itself. */
const textName = (column: string) => `${column}::text`;

/**
 * Each column of a kind read as text, again, cast (`t.amount::text AS "amount::text"`), after
 * the columns themselves: `SELECT t.*` keeps the table's column order (the order of `fields`),
 * and the text is Postgres' own whatever the pool's type parsers.
 */
function textColumns(kinds: ReadonlyMap<string, ColumnKind>): RawBuilder<unknown> {
  const cast = [...kinds]
    .filter(([, kind]) => AS_TEXT.has(kind))
    .map(([column]) => sql`${sql.ref(`t.${column}`)}::text AS ${sql.id(textName(column))}`);
  return sql.join(cast);
}

/** A typed table's columns, from the data contract, and those storage adds from the delivery. */
function typedKinds({ contract }: TypedTableEntry): ReadonlyMap<string, ColumnKind> {
  const delivery: Record<string, ColumnKind> = {
    event_name: 'text',
    webhook_id: 'exact',
    received_at: 'instant',
  };
  return new Map<string, ColumnKind>([
    ...contract.columns.map(({ column, sqlType }): [string, ColumnKind] => [
      column,
      sqlType === 'numeric' ? 'exact' : sqlType === 'text' ? 'text' : 'wall-clock',
    ]),
    ...contract.deliveryColumns.map((column): [string, ColumnKind] => [
      column,
      delivery[column] ?? 'text',
    ]),
  ]);
}

/**
 * A typed table's rows, found by the business key the event names (the registry's
 * events/event-types.ts): by that column alone, or with the event name where the key holds it
 * (both rejection events share a table).
 */
function typedSource(entry: TypedTableEntry): Source {
  const kinds = typedKinds(entry);
  const key = sql.ref(`t.${entry.businessKey}`);
  if (!(entry.key as readonly string[]).includes('event_name')) {
    return {
      kinds,
      query: (db, events) =>
        sql<SourceRow>`SELECT t.*, ${textColumns(kinds)} FROM ${sql.table(entry.table)} t
        WHERE ${key} = ANY(${events.map((e) => e.business_key)}::text[])`.execute(db),
      rowKey: (row) => String(row[entry.businessKey]),
      eventKey: (event) => event.business_key,
    };
  }
  return {
    kinds,
    query: (db, events) =>
      sql<SourceRow>`SELECT t.*, ${textColumns(kinds)} FROM ${sql.table(entry.table)} t
        JOIN unnest(${events.map((e) => e.event_name)}::text[],
          ${events.map((e) => e.business_key)}::text[]) AS k(event_name, business_key)
          ON t.event_name = k.event_name AND ${key} = k.business_key`.execute(db),
    rowKey: (row) => `${String(row.event_name)}/${String(row[entry.businessKey])}`,
    eventKey: (event) => `${event.event_name}/${event.business_key}`,
  };
}

const SOURCES: Partial<Record<FeedEventType, Source>> = {
  ...Object.fromEntries(TYPED_TABLES.map((entry) => [entry.feedType, typedSource(entry)])),
  // The conflict as detected: its resolution (changed later by an operator) is not part of it,
  // so every rendering of the event is the same.
  'conflict.detected': listed(
    'conflicts',
    [
      ['id', 'exact'],
      ['table_name', 'text'],
      ['event_name', 'text'],
      ['business_key', 'text'],
      ['first_webhook_id', 'exact'],
      ['webhook_id', 'exact'],
      ['record_index', 'number'],
      ['differences', 'json'],
      ['detected_at', 'instant'],
    ],
    (event) => event.conflict_id,
  ),
};

/** Named columns of a table whose rows an event names by `id` (a bigint). */
function listed(
  table: 'conflicts' | 'quarantined_deliveries',
  columns: readonly (readonly [string, ColumnKind])[],
  id: (event: FeedEventRow) => string | null,
): Source {
  const kinds = new Map(columns);
  const names = sql.join(columns.map(([column]) => sql.ref(`t.${column}`)));
  return {
    kinds,
    query: (db, events) =>
      sql<SourceRow>`SELECT ${names}, ${textColumns(kinds)} FROM ${sql.table(table)} t
        WHERE t.id = ANY(${events.map(id)}::bigint[])`.execute(db),
    rowKey: (row) => String(row.id),
    eventKey: (event) => String(id(event)),
  };
}

/**
 * A quarantined delivery as its events describe it: never its body or headers (the body comes
 * as `payloadBase64`, the exact bytes refused); the opened event without how it was handled, so
 * that every rendering of one event is the same.
 */
const QUARANTINE_COLUMNS: readonly (readonly [string, ColumnKind])[] = [
  ['id', 'exact'],
  ['event_name', 'text'],
  ['webhook_id_header', 'text'],
  ['webhook_id', 'exact'],
  ['received_at', 'instant'],
  ['body_sha256', 'text'],
  ['content_type', 'text'],
  ['reasons', 'json'],
];
const quarantineId = (event: FeedEventRow) => event.quarantine_id;
SOURCES['quarantine.opened'] = listed('quarantined_deliveries', QUARANTINE_COLUMNS, quarantineId);
SOURCES['quarantine.resolved'] = listed(
  'quarantined_deliveries',
  [
    ...QUARANTINE_COLUMNS,
    ['handled_at', 'instant'],
    ['handling', 'text'],
    ['handled_note', 'text'],
  ],
  quarantineId,
);

/** The normalised bodies of `events` (docs/feed.md, "The event body"), in the order given. */
export async function renderEvents(
  db: Db,
  events: readonly FeedEventRow[],
): Promise<RenderedEvent[]> {
  if (events.length === 0) return [];
  const fields = new Map<string, JsonValue>();
  const types = [...new Set(events.map((e) => e.type))];
  await Promise.all(
    types.map(async (type) => {
      const source = SOURCES[type];
      if (!source) return;
      const ofType = events.filter((e) => e.type === type);
      const result = await source.query(db, ofType);
      const rows = new Map(result.rows.map((row) => [source.rowKey(row), row]));
      for (const event of ofType) {
        const row = rows.get(source.eventKey(event));
        if (row) fields.set(event.id, normalisedRow(row, source.kinds));
      }
    }),
  );
  const ofDeliveries = events.filter((e) => e.quarantine_id === null && e.webhook_id !== null);
  const deliveries = await sql<DeliveryRow>`
    SELECT webhook_id::text AS webhook_id, received_at::text AS received_at,
      payload::text AS payload, CASE WHEN payload IS NULL THEN raw_body END AS raw_body
    FROM webhook_deliveries
    WHERE webhook_id = ANY(${[...new Set(ofDeliveries.map((e) => e.webhook_id))]}::bigint[])
  `.execute(db);
  const quarantined = events.filter((e) => e.quarantine_id !== null);
  const refused =
    quarantined.length === 0
      ? { rows: [] }
      : await sql<QuarantinedRow>`
          SELECT id::text AS id, received_at::text AS received_at,
            -- encode() breaks its base64 every 76 characters (MIME); a strict RFC 4648
            -- decoder refuses the line breaks.
            CASE WHEN pruned_at IS NULL THEN translate(encode(raw_body, 'base64'), E'\n', '') END
              AS payload_base64
          FROM quarantined_deliveries
          WHERE id = ANY(${quarantined.map((e) => e.quarantine_id)}::bigint[])
        `.execute(db);
  const delivery = new Map(deliveries.rows.map((row) => [row.webhook_id, row]));
  const refusedDelivery = new Map(refused.rows.map((row) => [row.id, row]));
  return events.map((event) => {
    const d =
      event.quarantine_id === null
        ? event.webhook_id === null
          ? undefined
          : delivery.get(event.webhook_id)
        : refusedDelivery.get(event.quarantine_id);
    const body: JsonValue = {
      id: `evt_${event.id}`,
      type: event.type,
      position: event.position,
      timestamp: isoInstant(event.created_at),
      data: {
        eventName: event.event_name,
        businessKey: event.business_key,
        webhookId: event.webhook_id,
        receivedAt: d ? isoInstant(d.received_at) : null,
        fields: fields.get(event.id) ?? null,
        ...(event.quarantine_id === null
          ? feedBody(d as DeliveryRow | undefined)
          : quarantinedBody(d as QuarantinedRow | undefined)),
      },
    };
    return { id: `evt_${event.id}`, position: event.position, body: jsonText(body) };
  });
}

interface DeliveryRow extends StoredBody {
  webhook_id: string;
  received_at: string;
}

/** The exact bytes refused, while the row keeps them. */
interface QuarantinedRow {
  id: string;
  received_at: string;
  payload_base64: string | null;
}

function quarantinedBody(
  row: QuarantinedRow | undefined,
): { payloadBase64: string } | { payload: null } {
  return row?.payload_base64 != null ? { payloadBase64: row.payload_base64 } : { payload: null };
}

/**
 * Money and bigints as exact strings, wall-clock times with their Sydney offset, UTC instants,
 * in the order the statement read the columns.
 */
function normalisedRow(row: SourceRow, kinds: ReadonlyMap<string, ColumnKind>): JsonValue {
  const out: Record<string, JsonValue> = {};
  for (const [name, read] of Object.entries(row)) {
    if (name.endsWith('::text')) continue;
    const kind = kinds.get(name) ?? 'text';
    const value = AS_TEXT.has(kind) ? row[textName(name)] : read;
    if (value === null || value === undefined) out[name] = null;
    else if (kind === 'wall-clock') out[name] = sydneyIso(String(value));
    else if (kind === 'instant') out[name] = isoInstant(String(value));
    else if (kind === 'json') out[name] = new RawJson(String(value));
    else if (typeof value === 'number' || typeof value === 'boolean') out[name] = value;
    else out[name] = String(value);
  }
  return out;
}

const PG_TIMESTAMPTZ =
  /^(\d{4,}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)([+-]\d{2})(?::?(\d{2}))?$/;

/** Postgres' `2026-11-22 14:35:11.329+11` (session zone) as UTC ISO 8601. */
export function isoInstant(text: string): string {
  const m = PG_TIMESTAMPTZ.exec(text);
  const date = m ? new Date(`${m[1]}T${m[2]}${m[3]}:${m[4] ?? '00'}`) : new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}
