import type { ColumnInfo, TableInfo } from './catalog.ts';

/**
 * How each copy of the template's rows is made new. The template is a few thousand real
 * deliveries the receiver stored; copy k (1, 2, ...) of a row keeps every value except:
 *
 * - delivery ids (`webhook_id`, any `*_webhook_id`, any column with a foreign key to the
 *   deliveries' id): + k x (template deliveries). The template's ids are consecutive, so the
 *   copies fill the range above them without a gap and every table's rows still point at their
 *   own delivery's copy;
 * - one column of every unique index that no delivery id already makes new, the one with the
 *   most distinct values in the template (a TransactionId, not the event name beside it):
 *   integers + k x (their range in the template); 64 hex digits (a SHA-256) the SHA-256 of the
 *   value and k; other text the value followed by k in a fixed number of digits;
 * - columns that hold another table's key (found by their values, stored/references.ts): the
 *   same rewrite as that key, so a feed event keeps pointing at its payment;
 * - timestamps: spread over SPREAD_DAYS before the seeding, copy by copy (the template itself is
 *   moved to the oldest slot), so the large database holds weeks of history, not one second.
 *
 * Everything else (bodies, headers, amounts, names) is the template's bytes.
 */

export const SPREAD_DAYS = 28;

export type Rule =
  | { kind: 'same' }
  /** A delivery id: + k x template deliveries. */
  | { kind: 'delivery' }
  /** A delivery id kept as text (a business key that is the Webhookid). */
  | { kind: 'delivery-text' }
  /** An integer key: + k x stride (its range in the template). */
  | { kind: 'offset'; stride: number }
  /** A SHA-256 in hex: the digest of the value and k (stays 64 hex digits). */
  | { kind: 'digest' }
  /** Text: the value followed by k, zero-padded to the width of the last copy's number. */
  | { kind: 'suffix' }
  /** A point in time: moved by the copy's slot in the spread. */
  | { kind: 'time' };

/** What the template holds in one column, for choosing which column of a key to rewrite. */
export interface ColumnFacts {
  distinct: number;
  nonNull: number;
  /** Integers only: the smallest and largest value (as text: bigint exceeds a double). */
  min: string | undefined;
  max: string | undefined;
  /** Every non-null value is 64 lower-case hex digits. */
  hex64: boolean;
}

export interface PlannedColumn {
  name: string;
  rule: Rule;
}

export interface TablePlan {
  table: string;
  /** Every column that is inserted (generated columns are computed by Postgres). */
  columns: PlannedColumn[];
  /** Identity and serial columns: their sequences are moved past the copies. */
  sequences: { column: string; sequence: string }[];
  /** The column that names the row's delivery (selects the template's rows). */
  deliveryColumn: string;
}

export interface DeliveryKey {
  /** The deliveries table (the receiver's store table) and its id column. */
  table: string;
  column: string;
}

const INTEGER_TYPES = new Set(['bigint', 'integer', 'smallint']);
const TIME_TYPES = new Set(['timestamp with time zone', 'timestamp without time zone']);

export const isInteger = (column: ColumnInfo) => INTEGER_TYPES.has(column.type);
export const isText = (column: ColumnInfo) =>
  column.type === 'text' || column.type.startsWith('character varying');

/** A column naming a delivery: by name (every table the receiver writes has `webhook_id`) or key. */
export function isDeliveryReference(
  table: TableInfo,
  column: ColumnInfo,
  delivery: DeliveryKey,
): boolean {
  if (table.name === delivery.table && column.name === delivery.column) return true;
  const named = column.name === delivery.column || column.name.endsWith(`_${delivery.column}`);
  const keyed = table.foreignKeys.some(
    (fk) =>
      fk.column === column.name &&
      fk.referencedTable === delivery.table &&
      fk.referencedColumn === delivery.column,
  );
  return (named || keyed) && isInteger(column);
}

/**
 * The rules for one table's columns, before references are known (stored/references.ts adds
 * those). Throws, naming the index, when a unique index has no column it knows how to rewrite:
 * a new migration then needs a rule here rather than a seeding that fails half-way.
 */
export function planTable(
  table: TableInfo,
  facts: Readonly<Record<string, ColumnFacts>>,
  delivery: DeliveryKey,
): TablePlan {
  const rules = new Map<string, Rule>();
  for (const column of table.columns) {
    if (isDeliveryReference(table, column, delivery)) rules.set(column.name, { kind: 'delivery' });
    else if (TIME_TYPES.has(column.type)) rules.set(column.name, { kind: 'time' });
  }
  for (const index of table.uniqueIndexes) {
    const changes = index.columns.some((name) => {
      const kind = rules.get(name)?.kind;
      return kind !== undefined && kind !== 'same' && kind !== 'time';
    });
    if (changes) continue;
    const chosen = index.columns
      .map((name) => table.columns.find((column) => column.name === name))
      .filter((column): column is ColumnInfo => !!column && (isInteger(column) || isText(column)))
      .sort((a, b) => (facts[b.name]?.distinct ?? 0) - (facts[a.name]?.distinct ?? 0))[0];
    if (!chosen) {
      throw new Error(
        `cannot make copies of ${table.name} new: its unique index ${index.name} has no ` +
          'integer or text column to rewrite (tools/bench/stored/copy-plan.ts needs a rule for it)',
      );
    }
    rules.set(chosen.name, keyRule(chosen, facts[chosen.name]));
  }
  const deliveryColumn = table.columns.find((c) => c.name === delivery.column);
  if (!deliveryColumn) throw new Error(`${table.name} has no ${delivery.column} column`);
  return {
    table: table.name,
    columns: table.columns
      .filter((column) => !column.generated)
      .map((column) => ({ name: column.name, rule: rules.get(column.name) ?? { kind: 'same' } })),
    sequences: table.columns.flatMap((column) =>
      column.sequence ? [{ column: column.name, sequence: column.sequence }] : [],
    ),
    deliveryColumn: deliveryColumn.name,
  };
}

/** The rewrite for a key column, by its type and what the template holds in it. */
export function keyRule(column: ColumnInfo, facts: ColumnFacts | undefined): Rule {
  if (isInteger(column)) {
    const min = BigInt(facts?.min ?? '0');
    const max = BigInt(facts?.max ?? '0');
    return { kind: 'offset', stride: Number(max - min + 1n) };
  }
  return facts?.hex64 && facts.nonNull > 0 ? { kind: 'digest' } : { kind: 'suffix' };
}

/** Does the rule change the value from copy to copy (so it makes a key new)? */
export function isRewrite(rule: Rule): boolean {
  return rule.kind !== 'same' && rule.kind !== 'time';
}

/** Tables in an order that inserts a row's parent (by foreign key) before the row. */
export function parentsFirst<T extends { name: string; foreignKeys: TableInfo['foreignKeys'] }>(
  tables: readonly T[],
): T[] {
  const names = new Set(tables.map((table) => table.name));
  const done = new Set<string>();
  const ordered: T[] = [];
  const visit = (table: T, path: readonly string[]) => {
    if (done.has(table.name)) return;
    if (path.includes(table.name)) throw new Error(`foreign keys in a cycle: ${path.join(' -> ')}`);
    for (const fk of table.foreignKeys) {
      const parent = tables.find((t) => t.name === fk.referencedTable);
      if (parent && parent !== table && names.has(parent.name)) {
        visit(parent, [...path, table.name]);
      }
    }
    done.add(table.name);
    ordered.push(table);
  };
  for (const table of tables) visit(table, []);
  return ordered;
}
