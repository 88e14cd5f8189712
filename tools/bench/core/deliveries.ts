import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * Deliveries signed before any measuring starts, so the cost of signing is never in a figure:
 * each has its own Webhookid, TransactionId and body. The pool only grows (between phases).
 */

export interface Delivery {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface DeliveryPool {
  readonly size: number;
  at(index: number): Delivery;
  /** Signs more deliveries until the pool holds at least `count`. */
  ensure(count: number): Promise<void>;
}

/** Webhookids start here: 16 digits, far below the bigint limit, and plainly synthetic. */
export const FIRST_WEBHOOK_ID = 1_000_000_000_000_000;

export function createDeliveryPool(options: {
  privateKeyPem: string;
  secret: string;
  /**
   * Delivery number of the first delivery (default 0): its Webhookid is FIRST_WEBHOOK_ID plus
   * this, its body paymentBody(this). A pool starting far from 0 never repeats one of the load's.
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

/**
 * A realistic NPPReceivePayment body for delivery number `index`: the platform's field names and
 * value shapes, 500-600 bytes, every TransactionId, EndToEndId and ReceiptNumber distinct. The
 * variety is derived from the index (no Math.random) so every run sends the same bytes.
 */

const REMITTERS = ['JANE CITIZEN', 'DUNCAN CITIZEN', 'MARIA NGUYEN', 'OLIVER SMITH PTY LTD'];
const DESCRIPTIONS = ['INV-', 'Order ', 'Rent ', 'Sub '];

export function paymentBody(index: number): string {
  const mix = scramble(index);
  const remitter = REMITTERS[mix % REMITTERS.length] ?? 'JANE CITIZEN';
  const cents = 100 + (mix % 2_500_000);
  const day = 1 + (mix % 28);
  const second = mix % 86_400;
  return JSON.stringify({
    TransactionId: `N${String(100_000_000_00 + index).padStart(11, '0')}`,
    DateTime: `2026-03-${pad(day)}T${pad(Math.floor(second / 3600))}:${pad(Math.floor(second / 60) % 60)}:${pad(second % 60)}.${String(mix % 10_000_000).padStart(7, '0')}`,
    RemitterName: remitter,
    Amount: Number((cents / 100).toFixed(2)),
    AccountName: 'Acme Receivables',
    AccountNumber: '419001918',
    Bsb: '802-985',
    PaymentDescription: `${DESCRIPTIONS[mix % DESCRIPTIONS.length] ?? 'INV-'}${10_000 + (index % 90_000)}`,
    PayId: 'pay@acme.com.au',
    PayIdName: 'ACME PTY LTD',
    SourceBsb: '062-000',
    SourceAccountNumber: String(10_000_000 + (mix % 89_999_999)),
    SourceAccountName: remitter,
    EndToEndId: `E2E-202603${pad(day)}-${index}`,
    CategoryPurposeCode: null,
    CreditorReferenceInformation: null,
    USINumber: null,
    USICreditorScheme: null,
    UltimateCreditorName: null,
    ReceiptNumber: 5_000_000 + index,
  });
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** A cheap, fixed integer hash: spreads consecutive indexes over the value ranges above. */
function scramble(index: number): number {
  let x = (index + 0x9e3779b9) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}
