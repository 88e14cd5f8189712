import { sql, type Selectable } from 'kysely';
import { decodeBody } from '../../receiver/contract.ts';
import { findEventModel } from '../../receiver/contract.ts';
import type { Database, Db } from '../../lib/database/database.ts';
import { quarantineEvent, storeDeliveries } from '../../receiver/index.ts';

/**
 * What an operator does with a quarantined delivery: list the open ones, look at one (why it was
 * refused, its headers and body), re-drive it through today's pipeline (after a fix, it may now
 * be stored: typed rows, feed event, deduplicated as ever), or mark it handled with a note. A row
 * is never deleted: it is the record that money waited, and how it was dealt with.
 */
export interface QuarantineSummary {
  id: string;
  eventName: string;
  webhookId: string | null;
  receivedAt: string;
  reasons: string[];
  handling: 'redriven' | 'marked' | null;
}

export interface QuarantineDetails extends QuarantineSummary {
  webhookIdHeader: string | null;
  contentType: string | null;
  headers: Record<string, string>;
  /** The body as UTF-8 text, cut at `BODY_SHOWN_BYTES`. */
  body: string;
  bodyBytes: number;
  handledAt: string | null;
  handledNote: string | null;
}

export type RedriveOutcome =
  | { outcome: 'stored' | 'already-stored'; typedRows: number }
  | { outcome: 'still-refused'; reasons: string[] }
  | { outcome: 'no-webhook-id' | 'not-found' | 'already-handled' };

const BODY_SHOWN_BYTES = 64 * 1024;
const REASONS_LISTED = 5;

/** A row as `SELECT *` reads it; the summary needs only some of its columns. */
type Row = Selectable<Database['quarantined_deliveries']>;
type SummaryRow = Pick<
  Row,
  'id' | 'event_name' | 'webhook_id' | 'received_at' | 'reasons' | 'handling'
>;

const reasonText = (reasons: Row['reasons']) => reasons.map((r) => `${r.path}: ${r.message}`);

function summary(row: SummaryRow): QuarantineSummary {
  return {
    id: row.id,
    eventName: row.event_name,
    webhookId: row.webhook_id,
    receivedAt: row.received_at.toISOString(),
    reasons: reasonText(row.reasons).slice(0, REASONS_LISTED),
    handling: row.handling,
  };
}

async function load(db: Db, id: string): Promise<Row | undefined> {
  const { rows } = await sql<Row>`
    SELECT * FROM quarantined_deliveries WHERE id = ${id}::bigint
  `.execute(db);
  return rows[0];
}

/** Open rows (oldest first), or every row with `all`; at most `limit`. */
export async function listQuarantine(
  db: Db,
  options: { limit: number; all?: boolean },
): Promise<QuarantineSummary[]> {
  const { rows } = await sql<SummaryRow>`
    SELECT id, event_name, webhook_id, received_at, reasons, handling
    FROM quarantined_deliveries
    WHERE ${options.all ? sql`true` : sql`handled_at IS NULL`}
    ORDER BY received_at, id
    LIMIT ${options.limit}
  `.execute(db);
  return rows.map(summary);
}

export async function showQuarantined(db: Db, id: string): Promise<QuarantineDetails | undefined> {
  const row = await load(db, id);
  if (!row) return undefined;
  return {
    ...summary(row),
    reasons: reasonText(row.reasons),
    webhookIdHeader: row.webhook_id_header,
    contentType: row.content_type,
    headers: row.headers,
    body: row.raw_body.subarray(0, BODY_SHOWN_BYTES).toString('utf8'),
    bodyBytes: row.raw_body.length,
    handledAt: row.handled_at?.toISOString() ?? null,
    handledNote: row.handled_note,
  };
}

/**
 * Runs the kept delivery through today's model and store statement. It was authenticated when it
 * arrived (secret and signature; the key's fingerprint is on the row), so it is not checked
 * again. Stored (or found already stored): the row is marked handled, `redriven`.
 */
export async function redriveQuarantined(
  db: Db,
  id: string,
  now: () => Date,
): Promise<RedriveOutcome> {
  const row = await load(db, id);
  if (!row) return { outcome: 'not-found' };
  if (row.handled_at) return { outcome: 'already-handled' };
  if (row.webhook_id === null) return { outcome: 'no-webhook-id' };
  const body = decodeBody(
    row.raw_body,
    row.content_type ?? undefined,
    findEventModel(row.event_name),
  );
  if (!body.ok) return { outcome: 'still-refused', reasons: reasonText(body.problems) };
  const [stored] = await storeDeliveries(db, [
    {
      delivery: {
        webhookId: row.webhook_id,
        eventName: row.event_name,
        receivedAt: now(),
        bodySha256: row.body_sha256,
        rawBody: row.raw_body,
        contentType: row.content_type,
        headers: row.headers,
        requestId: row.request_id,
        remoteAddress: row.remote_address,
        signingKeyFingerprint: row.signing_key_fingerprint,
        warnings: body.warnings,
      },
      typed: body.typed,
    },
  ]);
  const outcome = stored?.inserted ? 'stored' : 'already-stored';
  await markHandled(db, id, 'redriven', `re-driven: ${outcome}`, now);
  return { outcome, typedRows: stored?.typedRowsInserted ?? 0 };
}

/** Marks an open row handled; false when it is not there or already handled. */
export async function markHandled(
  db: Db,
  id: string,
  handling: 'redriven' | 'marked',
  note: string,
  now: () => Date,
): Promise<boolean> {
  // Handled and its feed event in one statement: the ledger learns the money no longer waits.
  const { rows } = await sql<{ id: string }>`
    WITH handled AS (
      UPDATE quarantined_deliveries
      SET handled_at = ${now()}, handling = ${handling}, handled_note = ${note.slice(0, 1000)}
      WHERE id = ${id}::bigint AND handled_at IS NULL
      RETURNING id, event_name, webhook_id
    ), resolved AS (
      ${quarantineEvent('quarantine.resolved', 'handled')}
    )
    SELECT id FROM handled
  `.execute(db);
  return rows.length > 0;
}
