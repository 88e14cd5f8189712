import { findEventModel, TYPED_TABLES } from '../../src/receiver/contract.ts';
import { ROW_TABLES } from '../../src/capture/index.ts';
import type { TypedTableEntry } from '../../src/receiver/contract.ts';
import type { RowTable } from '../../src/capture/index.ts';

/**
 * The rows a quarantined delivery should write once the receiver accepts it: one delivery, plus
 * for an event whose typed table a capture file counts (the registry, event-types.ts) one row
 * for a body that is one record, or one per distinct record id for an array of records. An
 * estimate from the body as it stands, for the operator to check; a body that is not JSON at
 * all counts no typed rows.
 */
export function targetRows(eventName: string, rawBody: Buffer): Record<RowTable, number> {
  const rows = Object.fromEntries(ROW_TABLES.map((table) => [table, 0])) as Record<
    RowTable,
    number
  >;
  rows.webhook_deliveries = 1;
  const name = findEventModel(eventName)?.name;
  const typed = TYPED_TABLES.find((t) => t.contract.events.includes(name ?? ''));
  if (typed === undefined || typed.capture !== 'counted') return rows;
  if (typed.contract.body === 'record') rows[typed.table] = 1;
  if (typed.contract.body === 'records') rows[typed.table] = countRecords(rawBody, idField(typed));
  return rows;
}

/** The record field that holds the business key, as the platform names it (`id`). */
function idField(typed: TypedTableEntry): string {
  const field = typed.contract.fields.find((f) => f.key === typed.rowKey);
  return field?.from[0] ?? typed.rowKey;
}

function countRecords(rawBody: Buffer, id: string): number {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    return 0;
  }
  const records = Array.isArray(json) ? json : [json];
  const ids = records.map((record: unknown) =>
    record !== null && typeof record === 'object'
      ? String((record as Record<string, unknown>)[id])
      : '',
  );
  return new Set(ids).size;
}
