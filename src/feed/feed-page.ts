import { sql } from 'kysely';
import type { Db } from '../lib/database/database.ts';
import { renderEvents, type FeedEventRow, type RenderedEvent } from './render-events.ts';

export interface FeedPage {
  events: RenderedEvent[];
  /** The position to pass as `after` next time (the last one returned, or `after` itself). */
  next: string;
}

/** A rendered event is about three copies of its body (payload, fields, envelope) at most. */
const BYTES_PER_BODY_BYTE = 3;
const ENVELOPE_BYTES = 2048;

/**
 * Events after `after`, in position order: at most `limit`, and stopping before the page's
 * estimated size passes `maxBytes` (always at least one event, so a reader never stalls).
 */
export async function readFeedPage(
  feedDb: Db,
  options: { after: string; limit: number; maxBytes: number },
): Promise<FeedPage> {
  const db = feedDb;
  const rows = await db
    .selectFrom('feed_events as e')
    .leftJoin('webhook_deliveries as d', 'd.webhook_id', 'e.webhook_id')
    .select([
      'e.id',
      'e.position',
      'e.type',
      'e.event_name',
      'e.business_key',
      'e.webhook_id',
      'e.conflict_id',
      'e.quarantine_id',
      sql<string>`e.created_at::text`.as('created_at'),
      sql<number | null>`octet_length(d.raw_body)`.as('body_bytes'),
    ])
    .where('e.position', '>', options.after)
    .orderBy('e.position')
    .limit(options.limit)
    .$narrowType<FeedEventRow>()
    .execute();
  const kept: FeedEventRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    bytes += ENVELOPE_BYTES + BYTES_PER_BODY_BYTE * (row.body_bytes ?? 0);
    if (kept.length > 0 && bytes > options.maxBytes) break;
    kept.push(row);
  }
  const events = await renderEvents(db, kept);
  return { events, next: events.at(-1)?.position ?? options.after };
}

/** `{"events":[…],"next":"…"}`, each event's body spliced in exactly as rendered. */
export function feedPageJson(page: FeedPage): string {
  return `{"events":[${page.events.map((e) => e.body).join(',')}],"next":${JSON.stringify(page.next)}}`;
}
