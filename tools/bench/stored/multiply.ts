import type pg from 'pg';
import { quoteIdentifier } from './catalog.ts';
import type { TablePlan } from './copy-plan.ts';
import {
  copyCount,
  copyStatement,
  moveTemplateStatement,
  sequenceStatements,
  snapshotStatement,
  type CopyShape,
} from './copy-sql.ts';
import { formatSeconds, type Progress } from './progress.ts';

/** About this many deliveries per statement: big enough to be quick, small enough to watch. */
export const DELIVERIES_PER_BATCH = 200_000;

/** Keeps the template's rows aside (temporary tables of this session) before anything moves. */
export async function snapshotTemplate(
  client: pg.Client,
  plans: readonly Pick<TablePlan, 'table' | 'deliveryColumn'>[],
  shape: CopyShape,
): Promise<void> {
  for (const plan of plans) await client.query(snapshotStatement(plan, shape));
}

/**
 * Moves the template to the oldest slot in time, then vacuums its tables while they are small:
 * the moved rows' old versions are gone before millions of rows make a vacuum of them slow.
 */
export async function moveTemplate(
  client: pg.Client,
  plans: readonly TablePlan[],
  shape: CopyShape,
): Promise<void> {
  for (const plan of plans) {
    const move = moveTemplateStatement(plan, shape);
    if (move) await client.query(move);
  }
  await client.query(`VACUUM ${plans.map((plan) => quoteIdentifier(plan.table)).join(', ')}`);
}

/**
 * Copies the template until the tables hold `shape.deliveries` deliveries, in batches of whole
 * copies, each batch one transaction over every table (parents first), so an interrupted
 * seeding leaves whole deliveries behind.
 */
export async function multiplyTemplate(
  client: pg.Client,
  plans: readonly TablePlan[],
  shape: CopyShape,
  progress: Progress,
): Promise<void> {
  const copies = copyCount(shape);
  const perBatch = Math.max(1, Math.floor(DELIVERIES_PER_BATCH / shape.templateDeliveries));
  const statements = plans.map((plan) => copyStatement(plan, shape));
  const started = performance.now();
  for (let first = 1; first < copies; first += perBatch) {
    const last = Math.min(copies - 1, first + perBatch - 1);
    await client.query('BEGIN');
    try {
      for (const statement of statements) await client.query(statement, [first, last]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
    progress(describeBatch(shape, last, performance.now() - started));
  }
  for (const plan of plans) {
    for (const statement of sequenceStatements(plan)) await client.query(statement);
  }
}

function describeBatch(shape: CopyShape, lastCopy: number, elapsedMs: number): string {
  const done = Math.min(shape.deliveries, (lastCopy + 1) * shape.templateDeliveries);
  const perSecond = (done - shape.templateDeliveries) / Math.max(elapsedMs / 1000, 1e-3);
  const left = (shape.deliveries - done) / Math.max(perSecond, 1);
  const percent = Math.floor((100 * done) / shape.deliveries);
  return (
    `seeding: ${done.toLocaleString('en-US')} / ${shape.deliveries.toLocaleString('en-US')} ` +
    `deliveries (${percent}%), ${formatSeconds(elapsedMs)}` +
    (done < shape.deliveries ? `, about ${formatSeconds(left * 1000)} left` : '')
  );
}
