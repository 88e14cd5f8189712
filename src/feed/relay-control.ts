import { sql, type ExpressionBuilder } from 'kysely';
import type { Database, Db } from '../lib/database/database.ts';

/** What the operator's commands do to the endpoints' delivery state (`npm run feed -- …`). */

/** The endpoint FEED_HTTP_URL declares: what `--endpoint` means when not given to start-after. */
export const CONFIGURED_ENDPOINT = 'configured';

/** What the commands need of an endpoint named on the command line. */
export interface NamedEndpoint {
  id: string;
  name: string;
  types: string[];
  fannedThrough: string;
  paused: boolean;
}

/** The endpoint called `name`, or undefined. */
export async function endpointNamed(db: Db, name: string): Promise<NamedEndpoint | undefined> {
  return db
    .selectFrom('feed_endpoints')
    .select(['id', 'name', 'types', 'fanned_through as fannedThrough', 'paused'])
    .where('name', '=', name)
    .executeTakeFirst();
}

export interface DeadLetter {
  endpoint: string;
  id: string;
  position: string;
  type: string;
  event_name: string;
  business_key: string;
  attempts: number;
  last_error: string | null;
  dead_at: string;
}

/** Dead letters (oldest first), of one endpoint or of every endpoint. */
export async function listDeadLetters(
  db: Db,
  options: { endpointId: string | undefined; limit: number },
): Promise<DeadLetter[]> {
  const query = db
    .selectFrom('feed_endpoint_events as r')
    .innerJoin('feed_endpoints as ep', 'ep.id', 'r.endpoint_id')
    .select([
      'ep.name as endpoint',
      'r.event_id as id',
      'r.position',
      'r.type',
      'r.event_name',
      'r.business_key',
      'r.attempts',
      'r.last_error',
      sql<string>`r.dead_at::text`.as('dead_at'),
    ])
    .where('r.state', '=', 'dead')
    .where((eb) =>
      options.endpointId === undefined
        ? eb.lit(true)
        : eb('r.endpoint_id', '=', options.endpointId),
    );
  return query.orderBy('r.position').orderBy('ep.name').limit(options.limit).execute();
}

/** A condition on an endpoint's rows: one endpoint's, or every endpoint's when undefined. */
const onEndpoint =
  (endpointId: string | undefined) => (eb: ExpressionBuilder<Database, 'feed_endpoint_events'>) =>
    endpointId === undefined ? eb.lit(true) : eb('endpoint_id', '=', endpointId);

/** A dead letter as it becomes pending again, with a fresh age. */
const REDRIVEN = {
  state: 'pending',
  attempts: 0,
  first_attempt_at: null,
  next_attempt_at: null,
  dead_at: null,
  claimed_by: null,
  claimed_until: null,
} as const;

/** An endpoint's dead letter becomes pending again; false when the event is not one there. */
export async function redriveOne(
  db: Db,
  endpointId: string | undefined,
  eventId: string,
): Promise<number> {
  let query = db
    .updateTable('feed_endpoint_events')
    .set(REDRIVEN)
    .where('event_id', '=', eventId)
    .where('state', '=', 'dead');
  if (endpointId !== undefined) query = query.where('endpoint_id', '=', endpointId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Every dead letter of one endpoint (or of every endpoint), in batches (each its own commit),
 * reporting progress after each.
 */
export async function redriveAll(
  db: Db,
  options: {
    endpointId: string | undefined;
    onProgress: (done: number) => void;
    batchSize?: number;
  },
): Promise<number> {
  const { endpointId } = options;
  let done = 0;
  for (;;) {
    const result = await db
      .updateTable('feed_endpoint_events')
      .set(REDRIVEN)
      .where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple('endpoint_id', 'position'),
          'in',
          selectFrom('feed_endpoint_events')
            .select(['endpoint_id', 'position'])
            .where('state', '=', 'dead')
            .where(onEndpoint(endpointId))
            .orderBy('position')
            .limit(options.batchSize ?? 1000)
            .$asTuple('endpoint_id', 'position'),
        ),
      )
      .executeTakeFirst();
    const changed = Number(result.numUpdatedRows);
    done += changed;
    if (changed === 0) return done;
    options.onProgress(done);
  }
}

/**
 * Every instance's relay reads an endpoint's `paused` in its claim statement: pausing stops
 * them all. One endpoint, or every endpoint when `endpointId` is undefined; answers the names
 * of the endpoints changed.
 */
export async function setPaused(
  db: Db,
  options: { endpointId: string | undefined; paused: boolean; reason: string | null },
): Promise<string[]> {
  const rows = await db
    .updateTable('feed_endpoints')
    .set({ paused: options.paused, paused_reason: options.reason, updated_at: sql<Date>`now()` })
    .where((eb) =>
      options.endpointId === undefined ? eb.lit(true) : eb('id', '=', options.endpointId),
    )
    .returning('name')
    .execute();
  return rows.map((row) => row.name).sort();
}
