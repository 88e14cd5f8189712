import { literal, quoteIdentifier as q } from './catalog.ts';
import type { PlannedColumn, Rule, TablePlan } from './copy-plan.ts';

/**
 * The SQL that multiplies the template (copy-plan.ts says what each column becomes). Copies are
 * made from a snapshot of the template in a temporary table, so each statement reads a few
 * thousand rows however large the table has grown, and the template can be moved in time
 * without the copies following it.
 */

export interface CopyShape {
  /** Deliveries in the template; their ids are firstDeliveryId ... firstDeliveryId + this - 1. */
  templateDeliveries: number;
  firstDeliveryId: bigint;
  /** Deliveries wanted in the end (the template included). */
  deliveries: number;
  /** Seconds between two copies' slots in time. */
  stepSeconds: number;
}

/** Copies including the template itself (copy 0); the last may be partial. */
export function copyCount(shape: Pick<CopyShape, 'deliveries' | 'templateDeliveries'>): number {
  return Math.ceil(shape.deliveries / shape.templateDeliveries);
}

export function snapshotName(table: string): string {
  return q(`seed_template_${table}`);
}

/** The template's rows of one table, kept aside in this session, in delivery order. */
export function snapshotStatement(
  plan: Pick<TablePlan, 'table' | 'deliveryColumn'>,
  shape: CopyShape,
): string {
  const last = shape.firstDeliveryId + BigInt(shape.templateDeliveries - 1);
  return (
    `CREATE TEMP TABLE ${snapshotName(plan.table)} AS SELECT * FROM ${q(plan.table)} ` +
    `WHERE ${q(plan.deliveryColumn)} BETWEEN ${shape.firstDeliveryId} AND ${last} ` +
    // Written in delivery order, read back in it: each copy's rows go in as the receiver wrote them.
    `ORDER BY ${q(plan.deliveryColumn)}`
  );
}

/**
 * Inserts copies $1 to $2 (inclusive) of the table's template rows. A row is copied only while
 * its delivery's number (template position + k x template size) is below the total, so the last
 * copy may be partial and the count comes out exact. Copy-major order: a copy's rows lie
 * together, as deliveries stored at one time do.
 */
export function copyStatement(plan: TablePlan, shape: CopyShape): string {
  const columns = plan.columns.map((column) => q(column.name)).join(', ');
  const values = plan.columns.map((column) => expression(column, shape)).join(', ');
  const ordinal = `s.${q(plan.deliveryColumn)} - ${shape.firstDeliveryId}`;
  return (
    `INSERT INTO ${q(plan.table)} (${columns}) OVERRIDING SYSTEM VALUE ` +
    `SELECT ${values} FROM generate_series($1::bigint, $2::bigint) AS k ` +
    // A LATERAL subquery on k that cannot be flattened (OFFSET 0) makes the copies the outer
    // loop: copy-major order without sorting a few hundred megabytes.
    `CROSS JOIN LATERAL (SELECT * FROM ${snapshotName(plan.table)} AS s ` +
    `WHERE ${ordinal} + k * ${shape.templateDeliveries} < ${shape.deliveries} ` +
    `OFFSET 0) AS t`
  );
}

/** Moves the template's own timestamps to the oldest slot (copy 0), where its ids belong. */
export function moveTemplateStatement(plan: TablePlan, shape: CopyShape): string | undefined {
  const times = plan.columns.filter((column) => column.rule.kind === 'time');
  if (times.length === 0) return undefined;
  const last = shape.firstDeliveryId + BigInt(shape.templateDeliveries - 1);
  const assignments = times
    .map((column) => `${q(column.name)} = ${q(column.name)} + ${timeShift('0', shape)}`)
    .join(', ');
  return (
    `UPDATE ${q(plan.table)} SET ${assignments} ` +
    `WHERE ${q(plan.deliveryColumn)} BETWEEN ${shape.firstDeliveryId} AND ${last}`
  );
}

/** Identity and serial sequences continue after the highest copied value. */
export function sequenceStatements(plan: TablePlan): string[] {
  return plan.sequences.map(
    ({ column, sequence }) =>
      `SELECT setval(${literal(sequence)}, (SELECT max(${q(column)}) FROM ${q(plan.table)}))`,
  );
}

/** The value of one column in copy k (`k` in the statement), from the template row `t`. */
export function expression(column: PlannedColumn, shape: CopyShape): string {
  return ruleExpression(`t.${q(column.name)}`, column.rule, shape);
}

export function ruleExpression(value: string, rule: Rule, shape: CopyShape): string {
  const perCopy = `k * ${shape.templateDeliveries}`;
  switch (rule.kind) {
    case 'same':
      return value;
    case 'delivery':
      return `${value} + ${perCopy}`;
    case 'delivery-text':
      return `(${value}::bigint + ${perCopy})::text`;
    case 'offset':
      return `${value} + k * ${rule.stride}`;
    case 'digest':
      return `encode(sha256(convert_to(${value} || ':' || k, 'UTF8')), 'hex')`;
    case 'suffix':
      return `${value} || lpad(k::text, ${suffixWidth(shape)}, '0')`;
    case 'time':
      return `${value} + ${timeShift('k', shape)}`;
  }
}

/** Digits of the last copy's number: a fixed width, so no two (value, copy) pairs meet. */
export function suffixWidth(shape: Pick<CopyShape, 'deliveries' | 'templateDeliveries'>) {
  return String(Math.max(1, copyCount(shape) - 1)).length;
}

/** Copy k sits (last copy - k) steps before the seeding: the newest copy is the last. */
function timeShift(k: string, shape: CopyShape): string {
  const last = copyCount(shape) - 1;
  return `(${k} - ${last}) * interval '${shape.stepSeconds.toFixed(3)} seconds'`;
}
