import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { paymentBody } from '../common/payment-body.ts';

/**
 * Deliveries signed before any measuring starts, so the cost of signing is never in a figure:
 * each has its own Webhookid, TransactionId and body (tools/common/payment-body.ts), and the
 * headers the platform sends. The pool only grows (between rounds).
 */

interface Delivery {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface DeliveryPool {
  readonly size: number;
  at(index: number): Delivery;
  /** Signs more deliveries until the pool holds at least `count`. */
  ensure(count: number): Promise<void>;
}

/**
 * Webhookids start here: 16 digits, far below the bigint limit, and plainly synthetic. Delivery
 * i is FIRST_WEBHOOK_ID + i with body paymentBody(i); seed-2m.sql numbers its rows from
 * FIRST_WEBHOOK_ID + 10^9, where the load never reaches.
 */
export const FIRST_WEBHOOK_ID = 1_000_000_000_000_000;

export function createDeliveryPool(options: {
  privateKeyPem: string;
  secret: string;
  /**
   * Delivery number of the pool's first delivery (default 0): a kept database (--database)
   * already holds the ones an earlier run sent.
   */
  firstIndex?: number;
}): DeliveryPool {
  const firstIndex = options.firstIndex ?? 0;
  const deliveries: Delivery[] = [];
  const workers = Math.max(1, availableParallelism());
  return {
    get size() {
      return deliveries.length;
    },
    at(index) {
      const delivery = deliveries[index];
      if (!delivery) throw new RangeError(`delivery ${index} is not in the pool`);
      return delivery;
    },
    async ensure(count) {
      const first = deliveries.length;
      if (count <= first) return;
      const bodies = Array.from({ length: count - first }, (_, i) =>
        paymentBody(firstIndex + first + i),
      );
      const signatures = await signInParallel(bodies, options.privateKeyPem, workers);
      bodies.forEach((body, i) => {
        deliveries.push({
          body,
          headers: {
            'Content-Type': 'application/json',
            Webhookid: String(FIRST_WEBHOOK_ID + firstIndex + first + i),
            'Verification-Signature': signatures[i] ?? '',
            Authorisation: options.secret,
          },
        });
      });
    },
  };
}

async function signInParallel(
  bodies: string[],
  privateKeyPem: string,
  workers: number,
): Promise<string[]> {
  const share = Math.ceil(bodies.length / workers);
  const parts = Array.from({ length: workers }, (_, i) =>
    bodies.slice(i * share, (i + 1) * share),
  ).filter((part) => part.length > 0);
  const signed = await Promise.all(parts.map((part) => signInWorker(part, privateKeyPem)));
  return signed.flat();
}

/**
 * A worker thread does not inherit tsx's loader, so a one-line bootstrap registers it before
 * importing the TypeScript worker.
 */
function signInWorker(bodies: string[], privateKeyPem: string): Promise<string[]> {
  const workerUrl = new URL('./sign-worker.ts', import.meta.url).href;
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(workerUrl)}); });`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(bootstrap, { eval: true, workerData: { privateKeyPem, bodies } });
    worker.once('message', (signatures: string[]) => {
      resolve(signatures);
      worker.terminate().catch((error: unknown) => {
        console.error('signing worker not terminated:', error);
      });
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`signing worker exited with code ${code}`));
    });
  });
}
