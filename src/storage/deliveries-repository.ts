import type { Kysely } from 'kysely';
import type { TypedRows } from '../events/types.ts';
import type { Database, Db } from './database.ts';
import { insertTypedRows } from './typed-rows-repository.ts';

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

export interface StoredDeliveryRef {
  webhookId: string;
  bodySha256: string;
  eventName: string;
}

export type StoreResult =
  | { outcome: 'stored'; typedRowsInserted: number; typedRowsAlreadyStored: number }
  /** `existing` is the delivery that holds the same Webhookid or the same body. */
  | { outcome: 'duplicate'; existing: StoredDeliveryRef | undefined };

/**
 * Stores a delivery and its typed rows in one transaction. Deduplication is the unique
 * constraints' job (`ON CONFLICT DO NOTHING`), never a look-up first: two instances storing the
 * same Webhookid at the same moment both get an answer and exactly one row exists.
 */
export async function storeDelivery(
  db: Db,
  delivery: NewDelivery,
  typed: TypedRows,
): Promise<StoreResult> {
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('webhook_deliveries')
      .values({
        webhook_id: delivery.webhookId,
        event_name: delivery.eventName,
        modelled: typed.kind !== 'unmodelled',
        received_at: delivery.receivedAt,
        body_sha256: delivery.bodySha256,
        raw_body: delivery.rawBody,
        payload: delivery.payloadJson,
        typed_rows_inserted: 0,
        typed_rows_already_stored: 0,
        content_type: delivery.contentType,
        headers: JSON.stringify(delivery.headers),
        request_id: delivery.requestId,
        remote_address: delivery.remoteAddress,
        signing_key_fingerprint: delivery.signingKeyFingerprint,
      })
      .onConflict((oc) => oc.doNothing())
      .returning('webhook_id')
      .executeTakeFirst();

    if (!inserted) {
      return {
        outcome: 'duplicate',
        existing: await findStoredDelivery(trx, delivery.webhookId, delivery.bodySha256),
      };
    }

    const rows = await insertTypedRows(trx, delivery, typed);
    if (rows.inserted > 0 || rows.alreadyStored > 0) {
      await trx
        .updateTable('webhook_deliveries')
        .set({ typed_rows_inserted: rows.inserted, typed_rows_already_stored: rows.alreadyStored })
        .where('webhook_id', '=', delivery.webhookId)
        .execute();
    }
    return {
      outcome: 'stored',
      typedRowsInserted: rows.inserted,
      typedRowsAlreadyStored: rows.alreadyStored,
    };
  });
}

/** The stored delivery with this Webhookid or this body, if any (for answers and logs only). */
export async function findStoredDelivery(
  db: Kysely<Database>,
  webhookId: string,
  bodySha256: string,
): Promise<StoredDeliveryRef | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select(['webhook_id', 'body_sha256', 'event_name'])
    .where((eb) => eb.or([eb('webhook_id', '=', webhookId), eb('body_sha256', '=', bodySha256)]))
    .limit(1)
    .executeTakeFirst();
  return (
    row && { webhookId: row.webhook_id, bodySha256: row.body_sha256, eventName: row.event_name }
  );
}
