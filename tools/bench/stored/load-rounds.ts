import type pg from 'pg';
import type { DeliveryPool } from '../deliveries.ts';
import type { BenchOptions } from '../options.ts';
import { describePhase } from '../phase-log.ts';
import {
  latencyPhase,
  throughputPhase,
  warmUp,
  type PhaseName,
  type PhaseRecord,
  type RoundsContext,
} from '../rounds.ts';
import type { BenchServer } from '../server-specs.ts';
import { readStorage, walBytesBetween, walPosition, type StorageFacts } from './database-facts.ts';
import { waitForFeedPositions } from './feed-positions.ts';
import type { GrowthProbe } from './growth-probe.ts';
import { createPoolCursor, type PoolView } from './pool-cursor.ts';

/**
 * The loaded half of --stored: the same receiver build on the empty and on the large database,
 * a throughput phase and a fixed-rate phase on each per round, in pairs that send exactly the
 * same deliveries. Odd rounds start with the empty database, even rounds with the large one,
 * so drift of the machine lands on both alike. Both receivers run throughout (as the three
 * servers of a normal run do); the one not measured is idle.
 *
 * Between phases, outside any measurement: the feed catches up, the WAL position and the
 * database's size are read, the empty database is emptied (TRUNCATE, as in a normal run) while
 * the large one keeps what the phase stored (it grows by a few per cent over a run), and a
 * CHECKPOINT leaves nothing dirty for the next phase.
 */

export type StoredDatabase = 'empty' | 'large';

export interface StoredTarget {
  database: StoredDatabase;
  /** Its store probe counts the phase's rows: emptied after (empty) or counted from (large). */
  server: BenchServer;
  /** The harness's own connection to the database: feed positions, sizes, WAL. */
  client: pg.Client;
  /** The large database's probe: rebased after each phase instead of emptied. */
  growth?: GrowthProbe;
}

export interface StoredPhaseRecord extends PhaseRecord {
  database: StoredDatabase;
  /** WAL the cluster wrote from the phase's start until the feed had numbered its events. */
  walBytes: number;
  /** The database right after the phase (before the empty one is emptied). */
  storage: StorageFacts;
}

export interface StoredRoundsContext {
  options: BenchOptions;
  targets: { empty: StoredTarget; large: StoredTarget };
  pool: DeliveryPool;
  log: (line: string) => void;
}

export function pairOrder(round: number): StoredDatabase[] {
  return round % 2 === 1 ? ['empty', 'large'] : ['large', 'empty'];
}

export async function runStoredRounds(ctx: StoredRoundsContext): Promise<StoredPhaseRecord[]> {
  const { options, targets } = ctx;
  const cursor = createPoolCursor(ctx.pool);
  const settled = new Map<StoredDatabase, { walEnd: string; storage: StorageFacts }>();
  const rounds = (view: PoolView): RoundsContext => ({
    options,
    servers: [targets.empty.server, targets.large.server],
    pool: view,
    log: ctx.log,
    settle: async (server) => {
      const target = server === targets.empty.server ? targets.empty : targets.large;
      settled.set(target.database, await settle(target));
    },
  });
  await targets.large.growth?.rebase(targets.large.server.store?.table ?? '');

  const estimate = new Map<StoredDatabase, number>();
  for (const database of pairOrder(1)) {
    const view = cursor.view();
    const rate = await warmUp(rounds(view), targets[database].server);
    cursor.consume(view);
    if (rate) estimate.set(database, rate);
  }

  const records: StoredPhaseRecord[] = [];
  const run = async (
    round: number,
    phase: PhaseName,
    view: PoolView,
    database: StoredDatabase,
  ): Promise<StoredPhaseRecord> => {
    const target = targets[database];
    const walStart = await walPosition(target.client);
    const measured =
      phase === 'throughput'
        ? await throughputPhase(rounds(view), target.server, estimate.get(database))
        : await latencyPhase(rounds(view), target.server);
    const after = settled.get(database);
    if (!after) throw new Error(`the ${database} database was not settled after its phase`);
    const record: StoredPhaseRecord = {
      ...measured,
      round,
      phase,
      database,
      walBytes: walBytesBetween(walStart, after.walEnd),
      storage: after.storage,
    };
    ctx.log(`${describePhase(record, database)}${describeStorage(record)}`);
    return record;
  };

  for (let round = 1; round <= options.rounds; round += 1) {
    for (const phase of ['throughput', 'latency'] as const) {
      // Both phases of the pair send the same deliveries, all new to the large database.
      const view = cursor.view();
      for (const database of pairOrder(round)) {
        const record = await run(round, phase, view, database);
        records.push(record);
        if (phase === 'throughput') {
          estimate.set(database, record.load.okPerSecond || (estimate.get(database) ?? 0));
        }
      }
      cursor.consume(view);
    }
  }
  return records;
}

async function settle(target: StoredTarget): Promise<{ walEnd: string; storage: StorageFacts }> {
  await waitForFeedPositions(target.client);
  const walEnd = await walPosition(target.client);
  const storage = await readStorage(target.client);
  const store = target.server.store;
  if (target.growth) await target.growth.rebase(store?.table ?? '');
  else await store?.probe.truncateAll();
  await target.client.query('CHECKPOINT');
  await new Promise((resolve) => setTimeout(resolve, 250));
  return { walEnd, storage };
}

function describeStorage(record: StoredPhaseRecord): string {
  const stored = record.rowsStored ?? 0;
  const wal =
    stored > 0 ? `${Math.round(record.walBytes / stored).toLocaleString('en-US')} B` : '-';
  const { deliveries, bytes } = record.storage;
  const size = deliveries > 0 ? `${Math.round(bytes / deliveries).toLocaleString('en-US')} B` : '-';
  return `; WAL ${wal}/delivery, ${size} stored/delivery (${deliveries.toLocaleString('en-US')} held)`;
}
