import type { Kysely } from 'kysely';
import type { Logger } from '../../lib/logger.ts';
import type { Database } from '../../lib/database/database.ts';
import {
  isDeterministicRefusal,
  isRowFault,
  sqlState,
} from '../../lib/database/database-errors.ts';
import { ParameterBuffers } from './parameter-bytes.ts';
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
  /** Told of every failed statement, with its error. */
  logger: Logger;
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
  // Statements in flight use one buffer each for their parameters; a retried batch one per
  // delivery (a few more are made then).
  const buffers = new ParameterBuffers(options.concurrency);

  const pump = () => {
    while (running < options.concurrency && queue.length > 0) {
      const batch = queue.splice(0, options.maxBatchSize);
      running += 1;
      write(batch)
        .catch((error: unknown) => {
          // write() answers every delivery of the batch itself; should it fail anyway, none is
          // left waiting (a delivery already answered keeps its answer).
          options.logger.error({ err: error, batchSize: batch.length }, 'batch not written');
          for (const pending of batch) pending.reject(error);
        })
        .finally(() => {
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
          buffers,
        );
        batch.forEach((pending, index) => pending.resolve(outcomes[index] as StoredOutcome));
        return;
      } catch (error) {
        // One delivery the database refuses, or a deadlock with another instance's batch, must
        // not fail its neighbours: each is tried again on its own, and only a faulty one fails.
        // A lost connection or a timeout is no row's fault: retrying each delivery would only
        // wait again, once per delivery, during an outage. All fail now (500: the platform
        // retries them).
        const retryEach = isRowFault(error);
        options.logger.warn(
          {
            err: error,
            sqlState: sqlState(error),
            batchSize: batch.length,
            webhookIds: batch.map((pending) => pending.item.delivery.webhookId),
            retryEach,
          },
          retryEach ? 'batch failed; retrying each delivery alone' : 'batch failed; none stored',
        );
        if (!retryEach) {
          batch.forEach((pending) => pending.reject(error));
          return;
        }
      }
    }
    await Promise.all(
      batch.map((pending) =>
        storeAlone(db, pending.item, buffers).then(pending.resolve, pending.reject),
      ),
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

/**
 * The database refused this delivery in a way every retry would meet again (see
 * database-errors.ts).
 */
export class UnstorableDeliveryError extends Error {
  constructor(cause: unknown) {
    const code = sqlState(cause);
    super(
      `the database refused a value in this delivery${code ? ` (SQLSTATE ${code})` : ''}: ${messageOf(cause)}`,
      { cause },
    );
    this.name = 'UnstorableDeliveryError';
  }
}

/**
 * One delivery in a statement of its own. If Postgres still refuses it (a typed value, an
 * identifier too long to index), the caller quarantines it: a signed delivery is never lost to
 * a 500 that would repeat on the platform's retry. The body itself cannot be refused: it is
 * stored as bytes.
 */
async function storeAlone(
  db: Kysely<Database>,
  item: DeliveryToStore,
  buffers: ParameterBuffers,
): Promise<StoredOutcome> {
  try {
    return (await storeDeliveries(db, [item], buffers))[0] as StoredOutcome;
  } catch (error) {
    if (!isDeterministicRefusal(error)) throw error;
    throw new UnstorableDeliveryError(error);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
