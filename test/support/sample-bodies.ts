import { contractOf } from '../../src/receiver/events/data-contract.ts';
import type { TypedRow } from '../../src/receiver/events/data-contract.ts';

/** Small valid bodies built in code, so each test states exactly what it sends. */

export function nppPayment(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    TransactionId: `TX${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    DateTime: '2023-08-11T14:19:16',
    Amount: 125.5,
    ReceiptNumber: 1048576,
    RemitterName: 'Jane Citizen',
    PaymentDescription: 'Invoice 42',
    ...overrides,
  };
}

export function rejectionRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `RJ${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    batchId: 5512,
    dateTime: '20/10/2020 12:00:01 AM',
    transactionType: 'DirectCredit',
    amount: '10.0000',
    ...overrides,
  };
}

/** A payment row with every optional column null (for tests that build rows directly). */
export function emptyPaymentRow(): TypedRow<'npp_payments'> {
  const columns = contractOf('NPPReceivePayment')?.columns ?? [];
  return {
    ...Object.fromEntries(columns.map((column) => [column.key, null])),
    transactionId: '',
    amount: '0',
  } as TypedRow<'npp_payments'>;
}

/**
 * The row the event's `samplePayload` should become, keyed by row key: each column holds its
 * field's example (a date-time's `...Local` the example read as Sydney wall-clock time).
 */
export function sampleRow(eventName: string): Record<string, string> {
  const columns = contractOf(eventName)?.columns ?? [];
  return Object.fromEntries(
    columns.map(({ key, field }) => [
      key,
      key.endsWith('Local') && field.kind === 'date-time'
        ? field.example.replace('T', ' ')
        : field.example,
    ]),
  );
}
