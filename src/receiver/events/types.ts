import type { TYPED_ROW_CONTRACTS, TypedRow } from './data-contract.ts';

/**
 * What the event layer hands to storage. Models turn a parsed JSON body into these rows;
 * storage writes them without knowing any provider field names (each key is its column's name
 * in camelCase: `payIdName` is `pay_id_name`). The rows are computed from the data contract
 * (`TypedRow`, data-contract.ts), which also states the conventions every row shares (money as
 * a decimal string, a date-time as `...Local` and `...Text`, null for an absent or unreadable
 * optional).
 */

/** A batch body around its records: what the platform says it holds, and what it does hold. */
export interface BatchRow {
  /** TotalCount as sent (null when absent or unreadable). */
  totalCount: number | null;
  /** TotalAmount, money like any amount (null when absent or unreadable). */
  totalAmount: string | null;
  /** How many records the batch holds. */
  recordCount: number;
}

/** One field-level problem (a 400 answer's `errors`) or warning (kept with the delivery). */
export interface FieldProblem {
  /** JSON path into the body, e.g. "Amount" or "[2].id"; "" for the body itself. */
  path: string;
  message: string;
}

/**
 * A table's rows, by the shape of its body: one row for a record, any number for an array of
 * records, and the batch's totals beside the rows of a batch.
 */
type RowsOf<C extends (typeof TYPED_ROW_CONTRACTS)[number]> = C extends { body: 'record' }
  ? { kind: C['kind']; rows: [TypedRow<C['table']>] }
  : C extends { body: 'records' }
    ? { kind: C['kind']; rows: TypedRow<C['table']>[] }
    : { kind: C['kind']; rows: TypedRow<C['table']>[]; batch: BatchRow };

/** One variant per typed table of the data contract, and the unmodelled event's none. */
export type TypedRows =
  RowsOf<(typeof TYPED_ROW_CONTRACTS)[number]> | { kind: 'unmodelled'; rows: [] };

export type ParseOutcome =
  | {
      ok: true;
      typed: TypedRows;
      /** Optional fields stored as null (or read with a caveat); at most MAX_LISTED and a count. */
      warnings: FieldProblem[];
    }
  | { ok: false; problems: FieldProblem[] };

/** A modelled event: its canonical name and how to turn a parsed JSON body into rows. */
export interface EventModel {
  name: string;
  parse(body: unknown): ParseOutcome;
}
