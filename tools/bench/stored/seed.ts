import type pg from 'pg';
import { createDeliveryPool, FIRST_WEBHOOK_ID } from '../core/deliveries.ts';
import { runLoad } from '../core/load.ts';
import { databaseUrl, withClient } from '../core/postgres.ts';
import { quoteIdentifier as q, readTables, type TableInfo } from './catalog.ts';
import {
  isRewrite,
  parentsFirst,
  planTable,
  SPREAD_DAYS,
  type ColumnFacts,
  type TablePlan,
} from './copy-plan.ts';
import { copyCount, type CopyShape } from './copy-sql.ts';
import { STORE_KEY, waitForFeedPositions } from './database-facts.ts';
import { moveTemplate, multiplyTemplate, snapshotTemplate } from './multiply.ts';
import { withHeartbeat, type Progress } from './progress.ts';
import { applyReferences, type ReferenceFinding } from './references.ts';
import { readTemplateFacts } from './template-facts.ts';

/**
 * Fills a freshly created database with `deliveries` stored deliveries: real rows, every unique
 * key new, vacuumed. First the receiver itself stores a template (signed deliveries of the mix
 * the load sends, through HTTP, exactly as in production); then SQL multiplies the template
 * (copy-plan.ts says how each column of each copy is made new); then VACUUM ANALYZE and a
 * CHECKPOINT leave it as a database that has been running for a while would be.
 */

/** Deliveries the receiver stores itself; the rest are copies of them. */
const TEMPLATE_DELIVERIES = 2_000;

/**
 * The template's delivery numbers start here: its Webhookids, TransactionIds and bodies (and so
 * their copies') are ones the load, whose deliveries are numbered from 0, never sends.
 */
export const SEED_FIRST_INDEX = 1_000_000_000;

interface SeedReceiver {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

interface SeedInput {
  adminUrl: string;
  /** Created, empty (the receiver migrates it). */
  database: string;
  deliveries: number;
  templateDeliveries?: number;
  /** The real receiver, on `database`. */
  startReceiver(database: string): Promise<SeedReceiver>;
  signing: { privateKeyPem: string; secret: string };
  progress: Progress;
}

export interface SeedReport {
  deliveries: number;
  templateDeliveries: number;
  /** Rows per table the seeding wrote (template and copies). */
  tables: { table: string; rows: number }[];
  /** Tables holding rows that belong to no delivery (left as the receiver wrote them). */
  untouched: { table: string; rows: number }[];
  /** Columns that looked like keys of another table, and whose key they hold (if any). */
  references: ReferenceFinding[];
  seconds: { template: number; copies: number; vacuum: number };
}

export async function seedDatabase(input: SeedInput): Promise<SeedReport> {
  const template = Math.min(input.deliveries, input.templateDeliveries ?? TEMPLATE_DELIVERIES);
  const started = performance.now();
  await storeTemplate(input, template);
  const templateSeconds = (performance.now() - started) / 1000;

  return withClient(databaseUrl(input.adminUrl, input.database), async (client) => {
    const firstDeliveryId = BigInt(FIRST_WEBHOOK_ID + SEED_FIRST_INDEX);
    await checkTemplate(client, firstDeliveryId, template);
    const shape: CopyShape = {
      templateDeliveries: template,
      firstDeliveryId,
      deliveries: input.deliveries,
      stepSeconds: (SPREAD_DAYS * 86_400) / copyCount({ ...input, templateDeliveries: template }),
    };
    const all = await readTables(client);
    const rows = await countRows(client, all);
    const owned = all.filter(
      (table) =>
        (rows.get(table.name) ?? 0) > 0 &&
        table.columns.some((column) => column.name === STORE_KEY.column),
    );
    const untouched = all
      .filter((table) => (rows.get(table.name) ?? 0) > 0 && !owned.includes(table))
      .map((table) => ({ table: table.name, rows: rows.get(table.name) ?? 0 }));

    const copying = performance.now();
    await snapshotTemplate(
      client,
      owned.map((table) => ({ table: table.name, deliveryColumn: STORE_KEY.column })),
      shape,
    );
    const facts: Record<string, Record<string, ColumnFacts>> = {};
    for (const table of owned) facts[table.name] = await readTemplateFacts(client, table);
    const plans = parentsFirst(owned).map((table) =>
      planTable(table, facts[table.name] ?? {}, STORE_KEY),
    );
    const references = await applyReferences(client, owned, plans, facts);
    input.progress(
      `seeding: ${template.toLocaleString('en-US')} deliveries stored by the receiver; copying ` +
        `them into ${owned.map((t) => t.name).join(', ')} (${describeKeys(plans)})`,
    );
    await moveTemplate(client, plans, shape);
    await multiplyTemplate(client, plans, shape, input.progress);
    const copiesSeconds = (performance.now() - copying) / 1000;

    const vacuuming = performance.now();
    await withHeartbeat(input.progress, 'seeding: VACUUM ANALYZE', () =>
      client.query('VACUUM (ANALYZE)'),
    );
    await withHeartbeat(input.progress, 'seeding: CHECKPOINT', () => client.query('CHECKPOINT'));
    const stored = await countRows(client, owned);
    const deliveries = stored.get(STORE_KEY.table) ?? 0;
    if (deliveries !== input.deliveries) {
      throw new Error(`seeding stored ${deliveries} deliveries, not ${input.deliveries}`);
    }
    return {
      deliveries,
      templateDeliveries: template,
      tables: owned.map((table) => ({ table: table.name, rows: stored.get(table.name) ?? 0 })),
      untouched,
      references,
      seconds: {
        template: templateSeconds,
        copies: copiesSeconds,
        vacuum: (performance.now() - vacuuming) / 1000,
      },
    };
  });
}

/** The template through the real receiver: signed, over HTTP, every one answered 200. */
async function storeTemplate(input: SeedInput, template: number): Promise<void> {
  const pool = createDeliveryPool({ ...input.signing, firstIndex: SEED_FIRST_INDEX });
  const [receiver] = await Promise.all([
    input.startReceiver(input.database),
    pool.ensure(template),
  ]);
  try {
    const load = await runLoad({
      url: receiver.url,
      pid: receiver.pid,
      pool,
      reuseDeliveries: false,
      amount: template,
      connections: 8,
    });
    const ok = load.statusCounts['200'] ?? 0;
    if (ok !== template || load.errors + load.timeouts > 0) {
      throw new Error(
        `the receiver stored ${ok} of ${template} template deliveries ` +
          `(answers ${JSON.stringify(load.statusCounts)}, ${load.errors} errors, ` +
          `${load.timeouts} timeouts)`,
      );
    }
    await withClient(databaseUrl(input.adminUrl, input.database), waitForFeedPositions);
  } finally {
    await receiver.stop();
  }
}

/** The copies' ids are computed from the template's: they must be exactly the ones sent. */
async function checkTemplate(client: pg.Client, first: bigint, template: number): Promise<void> {
  const result = await client.query<{ n: string; min: string | null; max: string | null }>(
    `SELECT count(*) AS n, min(${q(STORE_KEY.column)})::text AS min,
            max(${q(STORE_KEY.column)})::text AS max FROM ${q(STORE_KEY.table)}`,
  );
  const row = result.rows[0];
  const last = first + BigInt(template - 1);
  if (Number(row?.n) !== template || row?.min !== String(first) || row?.max !== String(last)) {
    throw new Error(
      `the template is not Webhookids ${first}..${last}: ${JSON.stringify(row)} ` +
        `in ${STORE_KEY.table}`,
    );
  }
}

async function countRows(
  client: pg.Client,
  tables: readonly TableInfo[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const table of tables) {
    const result = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${q(table.name)}`);
    counts.set(table.name, Number(result.rows[0]?.n ?? 0));
  }
  return counts;
}

function describeKeys(plans: readonly TablePlan[]): string {
  return plans
    .flatMap((plan) =>
      plan.columns
        .filter((column) => isRewrite(column.rule))
        .map((column) => `${plan.table}.${column.name}: ${column.rule.kind}`),
    )
    .join(', ');
}
