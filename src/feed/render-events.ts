import type { FeedEventType } from '../receiver/index.ts';
import { feedQuery, OID, type FeedQueryable } from './feed-query.ts';
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

/** Per type, the rows an event describes, and how a row and an event are matched. */
interface Source {
  query(events: readonly FeedEventRow[]): { text: string; values: unknown[] };
  rowKey(row: SourceRow): string;
  eventKey(event: FeedEventRow): string;
}

const byTransactionId = (table: string): Source => ({
  query: (events) => ({
    text: `SELECT * FROM ${table} WHERE transaction_id = ANY($1::text[])`,
    values: [events.map((e) => e.business_key)],
  }),
  rowKey: (row) => String(row.transaction_id),
  eventKey: (event) => event.business_key,
});

const SOURCES: Partial<Record<FeedEventType, Source>> = {
  'payment.received': byTransactionId('npp_payments'),
  'payto_payment.received': byTransactionId('payto_payments'),
  'direct_credit.received': byTransactionId('direct_credits'),
  'credit_rejection.received': {
    query: (events) => ({
      text: `SELECT r.* FROM credit_rejections r
        JOIN unnest($1::text[], $2::text[]) AS k(event_name, rejection_id)
          ON r.event_name = k.event_name AND r.rejection_id = k.rejection_id`,
      values: [events.map((e) => e.event_name), events.map((e) => e.business_key)],
    }),
    rowKey: (row) => `${String(row.event_name)}/${String(row.rejection_id)}`,
    eventKey: (event) => `${event.event_name}/${event.business_key}`,
  },
  // The conflict as detected: its resolution (changed later by an operator) is not part of it,
  // so every rendering of the event is the same.
  'conflict.detected': {
    query: (events) => ({
      text: `SELECT id, table_name, event_name, business_key, first_webhook_id, webhook_id,
          record_index, differences, detected_at
        FROM conflicts WHERE id = ANY($1::bigint[])`,
      values: [events.map((e) => e.conflict_id)],
    }),
    rowKey: (row) => String(row.id),
    eventKey: (event) => String(event.conflict_id),
  },
};

/**
 * A quarantined delivery as its events describe it: never its body or headers (the body comes
 * as `payloadBase64`, the exact bytes refused); the opened event without how it was handled, so
 * that every rendering of one event is the same.
 */
const quarantineRow = (columns: string): Source => ({
  query: (events) => ({
    text: `SELECT ${columns} FROM quarantined_deliveries WHERE id = ANY($1::bigint[])`,
    values: [events.map((e) => e.quarantine_id)],
  }),
  rowKey: (row) => String(row.id),
  eventKey: (event) => String(event.quarantine_id),
});
const QUARANTINE_COLUMNS =
  'id, event_name, webhook_id_header, webhook_id, received_at, body_sha256, content_type, reasons';
SOURCES['quarantine.opened'] = quarantineRow(QUARANTINE_COLUMNS);
SOURCES['quarantine.resolved'] = quarantineRow(
  `${QUARANTINE_COLUMNS}, handled_at, handling, handled_note`,
);

/** The normalised bodies of `events` (docs/feed.md, "The event body"), in the order given. */
export async function renderEvents(
  db: FeedQueryable,
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
      const { text, values } = source.query(ofType);
      const result = await feedQuery(db, text, values);
      const rows = new Map(result.rows.map((row) => [source.rowKey(row), row]));
      for (const event of ofType) {
        const row = rows.get(source.eventKey(event));
        if (row) fields.set(event.id, normalisedRow(row, result.fields));
      }
    }),
  );
  const ofDeliveries = events.filter((e) => e.quarantine_id === null && e.webhook_id !== null);
  const deliveries = await feedQuery<DeliveryRow>(
    db,
    `SELECT webhook_id, received_at, payload::text AS payload,
       CASE WHEN payload IS NULL THEN raw_body END AS raw_body
     FROM webhook_deliveries WHERE webhook_id = ANY($1::bigint[])`,
    [[...new Set(ofDeliveries.map((e) => e.webhook_id))]],
  );
  const quarantined = events.filter((e) => e.quarantine_id !== null);
  const refused =
    quarantined.length === 0
      ? { rows: [] }
      : await feedQuery<QuarantinedRow>(
          db,
          `SELECT id, webhook_id, received_at,
             CASE WHEN pruned_at IS NULL THEN encode(raw_body, 'base64') END AS payload_base64
           FROM quarantined_deliveries WHERE id = ANY($1::bigint[])`,
          [quarantined.map((e) => e.quarantine_id)],
        );
  const delivery = new Map(deliveries.rows.map((row) => [row.webhook_id, row]));
  const refusedDelivery = new Map(refused.rows.map((row) => [String(row.id), row]));
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
  webhook_id: string | null;
  received_at: string;
  payload_base64: string | null;
}

function quarantinedBody(
  row: QuarantinedRow | undefined,
): { payloadBase64: string } | { payload: null } {
  return row?.payload_base64 != null ? { payloadBase64: row.payload_base64 } : { payload: null };
}

/** Money and bigints as exact strings, wall-clock times with their Sydney offset, UTC instants. */
function normalisedRow(
  row: SourceRow,
  columns: readonly { name: string; dataTypeID: number }[],
): JsonValue {
  const out: Record<string, JsonValue> = {};
  for (const { name, dataTypeID } of columns) {
    const value = row[name];
    if (value === null || value === undefined) out[name] = null;
    else if (dataTypeID === OID.timestamp) out[name] = sydneyIso(String(value));
    else if (dataTypeID === OID.timestamptz) out[name] = isoInstant(String(value));
    else if (dataTypeID === OID.json || dataTypeID === OID.jsonb)
      out[name] = new RawJson(String(value));
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
