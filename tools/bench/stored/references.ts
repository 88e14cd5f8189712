import type pg from 'pg';
import { quoteIdentifier as q, type TableInfo } from './catalog.ts';
import { isInteger, isRewrite, type ColumnFacts, type Rule, type TablePlan } from './copy-plan.ts';
import { snapshotName } from './copy-sql.ts';
import { mayHoldKey } from './template-facts.ts';

/**
 * Columns that hold another table's key without a foreign key saying so (a feed event's
 * business_key is its payment's TransactionId; its conflict_id a conflicts row's id). Found by
 * their values: every value the template holds in the column is a value of that key in the
 * template. Such a column gets the key's own rewrite, so copies keep pointing at each other.
 */

interface Key {
  table: string;
  column: string;
  rule: Rule;
  integer: boolean;
}

export interface ReferenceFinding {
  table: string;
  column: string;
  /** The key it holds, or undefined when its values are not (all) one key's. */
  key: { table: string; column: string } | undefined;
}

/** Rewrites `plans` in place: each reference column gets its key's rule. */
export async function applyReferences(
  client: pg.Client,
  tables: readonly TableInfo[],
  plans: readonly TablePlan[],
  facts: Readonly<Record<string, Readonly<Record<string, ColumnFacts>>>>,
): Promise<ReferenceFinding[]> {
  const keys: Key[] = plans.flatMap((plan) => {
    const table = tables.find((t) => t.name === plan.table);
    return plan.columns
      .filter((column) => isRewrite(column.rule))
      .map((column) => ({
        table: plan.table,
        column: column.name,
        rule: column.rule,
        integer: table?.columns.some((c) => c.name === column.name && isInteger(c)) ?? false,
      }));
  });
  const findings: ReferenceFinding[] = [];
  for (const plan of plans) {
    const table = tables.find((t) => t.name === plan.table);
    for (const planned of plan.columns) {
      const column = table?.columns.find((c) => c.name === planned.name);
      if (!column || planned.rule.kind !== 'same' || !mayHoldKey(column)) continue;
      if ((facts[plan.table]?.[column.name]?.nonNull ?? 0) === 0) continue;
      const key = await keyHeld(client, plan.table, column.name, keys);
      findings.push({
        table: plan.table,
        column: column.name,
        key: key && { table: key.table, column: key.column },
      });
      if (!key) continue;
      const rule = referenceRule(key, isInteger(column));
      if (!rule) {
        throw new Error(
          `${plan.table}.${column.name} holds ${key.table}.${key.column} in another type: ` +
            'tools/bench/stored/references.ts needs a rule for it',
        );
      }
      planned.rule = rule;
    }
  }
  return findings;
}

/** The first key whose template values include every value of the column. */
async function keyHeld(
  client: pg.Client,
  table: string,
  column: string,
  keys: readonly Key[],
): Promise<Key | undefined> {
  for (const key of keys) {
    if (key.table === table && key.column === column) continue;
    const outside = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${snapshotName(table)} AS a
        WHERE a.${q(column)} IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM ${snapshotName(key.table)} AS b WHERE b.${q(key.column)}::text = a.${q(column)}::text)`,
    );
    if (Number(outside.rows[0]?.n ?? 1) === 0) return key;
  }
  return undefined;
}

/** The key's rewrite, for a column of the given kind; undefined when the types do not meet. */
function referenceRule(key: Key, integerColumn: boolean): Rule | undefined {
  if (key.rule.kind === 'delivery') return integerColumn ? key.rule : { kind: 'delivery-text' };
  if (key.integer !== integerColumn) return undefined;
  return key.rule;
}
