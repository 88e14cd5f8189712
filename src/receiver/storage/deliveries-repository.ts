import { sql, type Kysely } from 'kysely';
import type { Database } from '../../lib/database/database.ts';

export interface StoredDeliveryRef {
  webhookId: string;
  bodySha256: string;
  eventName: string;
}

/**
 * The stored delivery with this Webhookid, or with this body for this event, if any (for answers
 * and logs only). The same bytes posted for another event are another delivery.
 */
export async function findStoredDelivery(
  db: Kysely<Database>,
  webhookId: string,
  body: { eventName: string; bodySha256: string },
): Promise<StoredDeliveryRef | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select(['webhook_id', 'body_sha256', 'event_name'])
    .where((eb) =>
      eb.or([
        eb('webhook_id', '=', webhookId),
        // The expression of the deduplication constraint's hash index (migration
        // 2026-11-24T10-00-00): the form that index can answer.
        eb(
          sql<string>`event_name || ':' || body_sha256`,
          '=',
          `${body.eventName}:${body.bodySha256}`,
        ),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return (
    row && { webhookId: row.webhook_id, bodySha256: row.body_sha256, eventName: row.event_name }
  );
}
