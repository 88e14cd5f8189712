import type pg from 'pg';
import { quoteIdentifier as q, type ColumnInfo, type TableInfo } from './catalog.ts';
import { isInteger, isText, type ColumnFacts } from './copy-plan.ts';
import { snapshotName } from './copy-sql.ts';

/**
 * What the template (its snapshot, copy-sql.ts) holds in the columns that may need rewriting:
 * those of unique indexes and those that may hold another table's key. Read from a few thousand
 * rows, so it costs nothing next to the copying.
 */
export async function readTemplateFacts(
  client: pg.Client,
  table: TableInfo,
): Promise<Record<string, ColumnFacts>> {
  const wanted = new Set([
    ...table.uniqueIndexes.flatMap((index) => index.columns),
    ...table.columns.filter(mayHoldKey).map((column) => column.name),
  ]);
  const facts: Record<string, ColumnFacts> = {};
  for (const column of table.columns) {
    if (!wanted.has(column.name) || !(isInteger(column) || isText(column))) continue;
    const c = q(column.name);
    const result = await client.query<{
      distinct: string;
      non_null: string;
      min: string | null;
      max: string | null;
      hex64: boolean | null;
    }>(
      `SELECT count(DISTINCT ${c}) AS distinct, count(${c}) AS non_null,
              ${isInteger(column) ? `min(${c})::text` : 'NULL'} AS min,
              ${isInteger(column) ? `max(${c})::text` : 'NULL'} AS max,
              bool_and(${c}::text ~ '^[0-9a-f]{64}$') AS hex64
         FROM ${snapshotName(table.name)}`,
    );
    const row = result.rows[0];
    facts[column.name] = {
      distinct: Number(row?.distinct ?? 0),
      nonNull: Number(row?.non_null ?? 0),
      min: row?.min ?? undefined,
      max: row?.max ?? undefined,
      hex64: row?.hex64 ?? false,
    };
  }
  return facts;
}

/**
 * A column that may hold another table's key: named like an id or a key. Only these are looked
 * at, so a count that happens to fall in a range of ids is never taken for one.
 */
export function mayHoldKey(column: ColumnInfo): boolean {
  return (isInteger(column) || isText(column)) && /(^|_)(id|key)$/.test(column.name);
}
