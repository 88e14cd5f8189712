import { sql, type Kysely } from 'kysely';
import type { CreditRejectionRow, NppPaymentRow, TypedRows } from '../events/types.ts';
import type { Database } from './database.ts';
import { feedOutboxCte } from './feed-outbox-sql.ts';

export interface NewDelivery {
  /** Decimal text of a bigint: a JS number cannot hold every 19-digit id. */
  webhookId: string;
  eventName: string;
  receivedAt: Date;
  bodySha256: string;
  rawBody: Buffer;
  /** JSON text for the jsonb column, or null when jsonb cannot hold the body. */
  payloadJson: string | null;
  contentType: string | null;
  headers: Record<string, string>;
  requestId: string | null;
  remoteAddress: string | null;
  signingKeyFingerprint: string | null;
}

export interface DeliveryToStore {
  delivery: NewDelivery;
  typed: TypedRows;
}

/** Per input, in input order: whether its delivery row was written, and its typed rows' fate. */
export interface StoredOutcome {
  inserted: boolean;
  typedRowsInserted: number;
  /** Typed rows whose business key another delivery already stored. */
  typedRowsAlreadyStored: number;
  /** Postgres refused the body as jsonb: only raw_body holds it (payload is null). */
  payloadDropped?: boolean;
}

/**
 * Writes a batch of deliveries and all their typed rows in ONE statement (one round trip, one
 * commit). Deduplication is the unique constraints' job: `ON CONFLICT DO NOTHING` on
 * webhook_id, body_sha256, transaction_id and (event_name, rejection_id), never a look-up first,
 * so two instances storing the same Webhookid at the same moment leave exactly one row. Typed
 * rows are written only for deliveries this statement inserted (joined on the RETURNING set).
 * Inputs are sorted by key so that concurrent batches take row locks in the same order.
 */
export async function storeDeliveries(
  db: Kysely<Database>,
  batch: readonly DeliveryToStore[],
): Promise<StoredOutcome[]> {
  const byKey = [...batch].sort((a, b) => compareIds(a.delivery.webhookId, b.delivery.webhookId));
  const d = byKey.map((item) => ({ ...item.delivery, modelled: item.typed.kind !== 'unmodelled' }));
  const payments = withPositions(
    byKey
      .flatMap(({ delivery, typed }) =>
        typed.kind === 'npp-payment' ? typed.rows.map((row) => paymentRecord(delivery, row)) : [],
      )
      .sort((a, b) => compareText(a.transaction_id, b.transaction_id)),
  );
  const rejections = withPositions(
    byKey
      .flatMap(({ delivery, typed }) =>
        typed.kind === 'credit-rejections'
          ? typed.rows.map((row) => rejectionRecord(delivery, row))
          : [],
      )
      .sort(
        (a, b) =>
          compareText(a.event_name, b.event_name) || compareText(a.rejection_id, b.rejection_id),
      ),
  );

  // One fixed text whatever the batch size (everything travels in three JSON parameters), so it
  // is prepared once per connection (see PREPARED_STATEMENT_TAG in database.ts).
  const result = await sql<{ webhook_id: string; body_sha256: string; typed: number }>`
    /* prepared:store-deliveries-v2 */
    WITH incoming AS (
      SELECT * FROM jsonb_to_recordset(${deliveriesJson(d)}::jsonb) AS i(
        position int, webhook_id bigint, event_name text, modelled boolean,
        received_at timestamptz, body_sha256 text, raw_body_base64 text, payload jsonb,
        content_type text, headers jsonb, request_id text, remote_address text,
        signing_key_fingerprint text)
    ),
    delivery AS (
      INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
        raw_body, payload, content_type, headers, request_id, remote_address, signing_key_fingerprint)
      SELECT webhook_id, event_name, modelled, received_at, body_sha256,
        decode(raw_body_base64, 'base64'), payload, content_type, headers, request_id,
        remote_address, signing_key_fingerprint
      FROM incoming ORDER BY position
      ON CONFLICT DO NOTHING
      RETURNING webhook_id, body_sha256, event_name, modelled
    ),
    payment AS (
      INSERT INTO npp_payments (transaction_id, webhook_id, end_to_end_id, amount, date_time_local,
        date_time_text, receipt_number, pay_id, remitter_name, bsb, account_number,
        remittance_information, refund_inbound_amount, refund_amount, refund_id, received_at)
      SELECT p.transaction_id, p.webhook_id, p.end_to_end_id, p.amount, p.date_time_local,
        p.date_time_text, p.receipt_number, p.pay_id, p.remitter_name, p.bsb, p.account_number,
        p.remittance_information, p.refund_inbound_amount, p.refund_amount, p.refund_id, p.received_at
      FROM jsonb_to_recordset(${JSON.stringify(payments)}::jsonb) AS p(
        transaction_id text, webhook_id bigint, body_sha256 text, end_to_end_id text, amount numeric,
        date_time_local timestamp, date_time_text text, receipt_number text, pay_id text,
        remitter_name text, bsb text, account_number text, remittance_information text,
        refund_inbound_amount numeric, refund_amount numeric, refund_id text,
        received_at timestamptz, position bigint)
      JOIN delivery USING (webhook_id, body_sha256)
      ORDER BY p.position
      ON CONFLICT DO NOTHING
      RETURNING webhook_id, transaction_id
    ),
    rejection AS (
      INSERT INTO credit_rejections (event_name, rejection_id, webhook_id, batch_id, date_time_local,
        date_time_text, transaction_type, amount, bsb, account_number, account_name, reference,
        remitter_name, rejection_reason, received_at)
      SELECT r.event_name, r.rejection_id, r.webhook_id, r.batch_id, r.date_time_local,
        r.date_time_text, r.transaction_type, r.amount, r.bsb, r.account_number, r.account_name,
        r.reference, r.remitter_name, r.rejection_reason, r.received_at
      FROM jsonb_to_recordset(${JSON.stringify(rejections)}::jsonb) AS r(
        event_name text, rejection_id text, webhook_id bigint, body_sha256 text, batch_id text,
        date_time_local timestamp, date_time_text text, transaction_type text, amount numeric,
        bsb text, account_number text, account_name text, reference text, remitter_name text,
        rejection_reason text, received_at timestamptz, position bigint)
      JOIN delivery USING (webhook_id, body_sha256)
      ORDER BY r.position
      ON CONFLICT DO NOTHING
      RETURNING webhook_id, event_name, rejection_id
    ),
    ${OUTBOX},
    typed AS (
      SELECT webhook_id FROM payment UNION ALL SELECT webhook_id FROM rejection
    )
    SELECT delivery.webhook_id::text AS webhook_id, delivery.body_sha256,
      (SELECT count(*) FROM typed WHERE typed.webhook_id = delivery.webhook_id)::int AS typed
    FROM delivery
  `.execute(db);

  // Two identical deliveries in one batch share a key; the first claims the written row and
  // the other is a duplicate, as it would be had they arrived one after the other.
  const written = new Map(
    result.rows.map((row) => [`${row.webhook_id}/${row.body_sha256}`, row.typed]),
  );
  return batch.map(({ delivery, typed }) => {
    const key = `${delivery.webhookId}/${delivery.bodySha256}`;
    const typedRowsInserted = written.get(key);
    written.delete(key);
    if (typedRowsInserted === undefined) {
      return { inserted: false, typedRowsInserted: 0, typedRowsAlreadyStored: 0 };
    }
    return {
      inserted: true,
      typedRowsInserted,
      typedRowsAlreadyStored: typed.rows.length - typedRowsInserted,
    };
  });
}

function paymentRecord(delivery: NewDelivery, row: NppPaymentRow) {
  return {
    transaction_id: row.transactionId,
    webhook_id: delivery.webhookId,
    body_sha256: delivery.bodySha256,
    end_to_end_id: row.endToEndId,
    amount: row.amount,
    date_time_local: row.dateTimeLocal,
    date_time_text: row.dateTimeText,
    receipt_number: row.receiptNumber,
    pay_id: row.payId,
    remitter_name: row.remitterName,
    bsb: row.bsb,
    account_number: row.accountNumber,
    remittance_information: row.remittanceInformation,
    refund_inbound_amount: row.refundInboundAmount,
    refund_amount: row.refundAmount,
    refund_id: row.refundId,
    received_at: delivery.receivedAt.toISOString(),
  };
}

function rejectionRecord(delivery: NewDelivery, row: CreditRejectionRow) {
  return {
    event_name: delivery.eventName,
    rejection_id: row.rejectionId,
    webhook_id: delivery.webhookId,
    body_sha256: delivery.bodySha256,
    batch_id: row.batchId,
    date_time_local: row.dateTimeLocal,
    date_time_text: row.dateTimeText,
    transaction_type: row.transactionType,
    amount: row.amount,
    bsb: row.bsb,
    account_number: row.accountNumber,
    account_name: row.accountName,
    reference: row.reference,
    remitter_name: row.remitterName,
    rejection_reason: row.rejectionReason,
    received_at: delivery.receivedAt.toISOString(),
  };
}

/**
 * All deliveries as one JSON parameter, built by concatenation: each body's JSON text goes in
 * as it is (already parsed once, so valid JSON), and Postgres parses it exactly once, into the
 * payload column, with every number as exact as it was sent. Raw bytes travel as base64.
 */
function deliveriesJson(deliveries: readonly (NewDelivery & { modelled: boolean })[]): string {
  const text = (value: string | null) => (value === null ? 'null' : JSON.stringify(value));
  const rows = deliveries.map(
    (x, position) =>
      `{"position":${position},"webhook_id":${x.webhookId},"event_name":${text(x.eventName)},` +
      `"modelled":${x.modelled},"received_at":"${x.receivedAt.toISOString()}",` +
      `"body_sha256":"${x.bodySha256}","raw_body_base64":"${x.rawBody.toString('base64')}",` +
      `"payload":${x.payloadJson ?? 'null'},"content_type":${text(x.contentType)},` +
      `"headers":${JSON.stringify(x.headers)},"request_id":${text(x.requestId)},` +
      `"remote_address":${text(x.remoteAddress)},` +
      `"signing_key_fingerprint":${text(x.signingKeyFingerprint)}}`,
  );
  return `[${rows.join(',')}]`;
}

/** The feed's events: every typed row this statement inserted, and every unmodelled delivery. */
const OUTBOX = feedOutboxCte([
  {
    type: 'payment.received',
    from: 'payment',
    eventName: "'NPPReceivePayment'",
    businessKey: 'transaction_id',
    webhookId: 'webhook_id',
  },
  {
    type: 'credit_rejection.received',
    from: 'rejection',
    eventName: 'event_name',
    businessKey: 'rejection_id',
    webhookId: 'webhook_id',
  },
  {
    type: 'event.unmodelled',
    from: 'delivery',
    eventName: 'event_name',
    businessKey: 'webhook_id',
    webhookId: 'webhook_id',
    where: 'NOT modelled',
  },
]);

/** Statement order for the insert (and so for the row locks it takes). */
function withPositions<T>(records: T[]): (T & { position: number })[] {
  return records.map((record, position) => ({ ...record, position }));
}

/** Webhookids are decimal text of up to 19 digits: compare as numbers without BigInt. */
function compareIds(a: string, b: string): number {
  return a.length - b.length || compareText(a, b);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
