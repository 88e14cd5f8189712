import { createHash, type KeyObject } from 'node:crypto';
import { signBody } from '../../common/signing.ts';
import type { ExpectedDelivery } from './store.ts';

/** One notification as the platform would send it, with what it should leave in the database. */
export interface PlannedDelivery extends ExpectedDelivery {
  eventName: 'NPPReceivePayment' | 'InboundDirectCreditRejections';
  body: Buffer;
  signature: string;
}

export interface WorkloadOptions {
  /** Marks the scenario in every identifier, so rows say where they came from. */
  tag: string;
  /** Webhookids are idBase + 1, idBase + 2, ... */
  idBase: bigint;
  privateKey: KeyObject;
  /** Every signature made, for the leak check. */
  onSignature: (signature: string) => void;
}

/** Every tenth delivery is a batch of two direct-credit rejections; the rest are NPP payments. */
const REJECTION_EVERY = 10;

/** Makes fresh, correctly signed deliveries on demand. */
export function createWorkload(o: WorkloadOptions): () => PlannedDelivery {
  let sequence = 0;
  return () => {
    sequence += 1;
    const n = String(sequence).padStart(6, '0');
    const webhookId = (o.idBase + BigInt(sequence)).toString();
    const planned =
      sequence % REJECTION_EVERY === 0
        ? rejections(`RJ-${o.tag}-${n}`)
        : payment(`TX-${o.tag}-${n}`, sequence);
    const body = Buffer.from(JSON.stringify(planned.json), 'utf8');
    const signature = signBody(body, o.privateKey);
    o.onSignature(signature);
    return {
      webhookId,
      eventName: planned.eventName,
      body,
      signature,
      sha256: createHash('sha256').update(body).digest('hex'),
      rows: planned.rows,
    };
  };
}

function payment(transactionId: string, sequence: number) {
  return {
    eventName: 'NPPReceivePayment' as const,
    rows: [{ table: 'npp_payments', key: transactionId }],
    json: {
      TransactionId: transactionId,
      EndToEndId: `E2E${sequence}`,
      DateTime: '2026-11-22T10:15:30',
      // Alternate the two forms the platform sends amounts in.
      Amount: sequence % 2 === 0 ? `${sequence % 1000}.2500` : (sequence % 1000) + 0.5,
      ReceiptNumber: sequence,
      RemitterName: 'Load Balancer Test',
      Bsb: '802-985',
      AccountNumber: '123456789',
      PaymentDescription: `lb ${transactionId}`,
    },
  };
}

function rejections(prefix: string) {
  const ids = [`${prefix}-1`, `${prefix}-2`];
  return {
    eventName: 'InboundDirectCreditRejections' as const,
    rows: ids.map((key) => ({ table: 'credit_rejections', key })),
    json: ids.map((id, index) => ({
      id,
      batchId: 5512,
      dateTime: '20/10/2026 12:00:01 AM',
      transactionType: 'DirectCredit',
      amount: `${10 + index}.0000`,
      remitterName: 'Load Balancer Test',
      rejectionReason: 'Account closed',
    })),
  };
}
