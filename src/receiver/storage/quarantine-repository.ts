import { sql } from 'kysely';
import type { FieldProblem } from '../events/types.ts';
import type { Db } from '../../lib/database/database.ts';
import { quarantineEvent } from './feed-outbox-sql.ts';

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
  // The row and its feed event in one statement (one commit): a ledger fed by the feed learns
  // that money waits in quarantine exactly when the row exists, and a repeat adds neither.
  const { rows } = await sql<{ id: string }>`
    WITH kept AS (
      INSERT INTO quarantined_deliveries (event_name, webhook_id_header, webhook_id, received_at,
        body_sha256, raw_body, content_type, headers, reasons, request_id, remote_address,
        signing_key_fingerprint)
      VALUES (${delivery.eventName}, ${delivery.webhookIdHeader}, ${delivery.webhookId},
        ${delivery.receivedAt}, ${delivery.bodySha256}, ${delivery.rawBody},
        ${delivery.contentType}, ${JSON.stringify(delivery.headers)},
        ${JSON.stringify(delivery.reasons)}, ${delivery.requestId}, ${delivery.remoteAddress},
        ${delivery.signingKeyFingerprint})
      ON CONFLICT DO NOTHING
      RETURNING id, event_name, webhook_id
    ), opened AS (
      ${quarantineEvent('quarantine.opened', 'kept')}
    )
    SELECT id FROM kept
  `.execute(db);
  const inserted = rows[0];
  if (inserted) return { id: String(inserted.id), written: true };
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
