import { sql } from 'kysely';
import type { FieldProblem } from '../events/types.ts';
import type { Db } from './database.ts';

export interface QuarantinedDelivery {
  eventName: string;
  webhookIdHeader: string | null;
  webhookId: string | null;
  receivedAt: Date;
  bodySha256: string;
  rawBody: Buffer;
  contentType: string | null;
  headers: Record<string, string>;
  reasons: readonly FieldProblem[];
  requestId: string | null;
  remoteAddress: string | null;
  signingKeyFingerprint: string | null;
}

export interface QuarantineRow {
  /** quarantined_deliveries.id: what an operator names in `npm run quarantine`. */
  id: string;
  /** False when the same refused delivery was already kept (one row for both). */
  written: boolean;
}

/**
 * Keeps an authenticated delivery that we refused, for an operator. Sending the same refused
 * delivery again keeps one row. Answers the row's id and whether it is new.
 */
export async function quarantineDelivery(
  db: Db,
  delivery: QuarantinedDelivery,
): Promise<QuarantineRow> {
  const inserted = await db
    .insertInto('quarantined_deliveries')
    .values({
      event_name: delivery.eventName,
      webhook_id_header: delivery.webhookIdHeader,
      webhook_id: delivery.webhookId,
      received_at: delivery.receivedAt,
      body_sha256: delivery.bodySha256,
      raw_body: delivery.rawBody,
      content_type: delivery.contentType,
      headers: JSON.stringify(delivery.headers),
      reasons: JSON.stringify(delivery.reasons),
      request_id: delivery.requestId,
      remote_address: delivery.remoteAddress,
      signing_key_fingerprint: delivery.signingKeyFingerprint,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return { id: inserted.id, written: true };
  // The row the unique key (event, header, body) points at: the one kept earlier.
  const kept = await db
    .selectFrom('quarantined_deliveries')
    .select('id')
    .where('event_name', '=', delivery.eventName)
    .where('body_sha256', '=', delivery.bodySha256)
    .where(sql<boolean>`webhook_id_header IS NOT DISTINCT FROM ${delivery.webhookIdHeader}`)
    .executeTakeFirst();
  return { id: kept?.id ?? 'unknown', written: false };
}
