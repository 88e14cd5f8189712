import type { Kysely } from 'kysely';
import type { Database } from './database.ts';
import { storeDeliveries, type DeliveryToStore, type StoredOutcome } from './store-deliveries.ts';

export interface DeliveryStore {
  /** Resolves once the delivery's batch has committed (or rejects if it could not be stored). */
  store(item: DeliveryToStore): Promise<StoredOutcome>;
}

export interface BatchingOptions {
  /** Statements in flight at once. */
  concurrency: number;
  /** Most deliveries in one statement. */
  maxBatchSize: number;
  /** Told the size of every statement written (for metrics). */
  onBatch?: (size: number) => void;
}

interface Pending {
  item: DeliveryToStore;
  resolve: (outcome: StoredOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit without a timer. A delivery is written at once when a statement slot is free;
 * while all slots are busy, arrivals queue and go together in the next statement. At low load
 * every delivery is its own statement (no added latency); under load one commit carries many.
 * Each caller is answered only after the statement holding its delivery has committed.
 */
export function createBatchingStore(db: Kysely<Database>, options: BatchingOptions): DeliveryStore {
  const queue: Pending[] = [];
  let running = 0;

  const pump = () => {
    while (running < options.concurrency && queue.length > 0) {
      const batch = queue.splice(0, options.maxBatchSize);
      running += 1;
      void write(batch).finally(() => {
        running -= 1;
        pump();
      });
    }
  };

  const write = async (batch: Pending[]) => {
    options.onBatch?.(batch.length);
    if (batch.length > 1) {
      try {
        const outcomes = await storeDeliveries(
          db,
          batch.map((pending) => pending.item),
        );
        batch.forEach((pending, index) => pending.resolve(outcomes[index] as StoredOutcome));
        return;
      } catch {
        // One delivery the database refuses, or a deadlock with another instance's batch, must
        // not fail its neighbours: each is tried again on its own, and only a faulty one fails.
      }
    }
    await Promise.all(
      batch.map((pending) => storeAlone(db, pending.item).then(pending.resolve, pending.reject)),
    );
  };

  return {
    store: (item) =>
      new Promise<StoredOutcome>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        pump();
      }),
  };
}

/** The database refused a value in this delivery (SQLSTATE class 22), even without its payload. */
export class UnstorableDeliveryError extends Error {
  constructor(cause: unknown) {
    super(`the database refused a value in this delivery: ${messageOf(cause)}`, { cause });
    this.name = 'UnstorableDeliveryError';
  }
}

/**
 * One delivery in a statement of its own. If Postgres refuses a value in the jsonb copy of the
 * body (a number beyond numeric's range, say), the delivery is stored with its raw bytes only:
 * a signed delivery is never lost to a 500 that would repeat on the platform's retry.
 */
async function storeAlone(db: Kysely<Database>, item: DeliveryToStore): Promise<StoredOutcome> {
  let failure: unknown;
  try {
    return (await storeDeliveries(db, [item]))[0] as StoredOutcome;
  } catch (error) {
    if (!isDataException(error)) throw error;
    failure = error;
  }
  if (item.delivery.payloadJson !== null) {
    try {
      const withoutPayload = { ...item, delivery: { ...item.delivery, payloadJson: null } };
      const [outcome] = await storeDeliveries(db, [withoutPayload]);
      return { ...(outcome as StoredOutcome), payloadDropped: true };
    } catch (error) {
      if (!isDataException(error)) throw error;
      failure = error;
    }
  }
  throw new UnstorableDeliveryError(failure);
}

function isDataException(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('22');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
