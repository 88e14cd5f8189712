import { findEventModel } from '../../src/receiver/index.ts';
import type { RowTable } from '../../src/receiver/index.ts';

/**
 * The rows a quarantined delivery should write once the receiver accepts it: one delivery, plus
 * one payment, or one rejection per distinct record id. An estimate from the body as it stands,
 * for the operator to check; a body that is not JSON at all counts no typed rows.
 */
export function targetRows(eventName: string, rawBody: Buffer): Record<RowTable, number> {
  const rows = {
    webhook_deliveries: 1,
    npp_payments: 0,
    payto_payments: 0,
    credit_rejections: 0,
    conflicts: 0,
    quarantined_deliveries: 0,
  };
  const model = findEventModel(eventName)?.name;
  if (model === 'NPPReceivePayment') rows.npp_payments = 1;
  if (model === 'PayToReceivePayment') rows.payto_payments = 1;
  if (model === 'InboundDirectCreditRejections' || model === 'NPPCreditRejections') {
    rows.credit_rejections = countRecords(rawBody);
  }
  return rows;
}

function countRecords(rawBody: Buffer): number {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    return 0;
  }
  const records = Array.isArray(json) ? json : [json];
  const ids = records.map((record: unknown) =>
    record !== null && typeof record === 'object' ? String((record as { id?: unknown }).id) : '',
  );
  return new Set(ids).size;
}
