import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { DeliveryPool } from '../core/deliveries.ts';
import type { BenchOptions } from '../core/options.ts';
import type { StoreProbe } from '../core/postgres.ts';
import {
  describePhase,
  latencyPhase,
  throughputPhase,
  warmUp,
  type PhaseName,
  type PhaseRecord,
  type RoundsContext,
} from '../core/rounds.ts';
import type { BenchServer } from '../core/servers.ts';
import {
  readStorage,
  waitForFeedPositions,
  walBytesBetween,
  walPosition,
  type StorageFacts,
} from './database-facts.ts';

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
  /** A receiver on the database, with its store probe. */
  server: BenchServer;
  /** The harness's own connection to the database: feed positions, sizes, WAL. */
  client: pg.Client;
}

interface Target extends StoredTarget {
  database: StoredDatabase;
  store: NonNullable<BenchServer['store']>;
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

interface StoredRoundsContext {
  options: BenchOptions;
  targets: Record<StoredDatabase, StoredTarget>;
  pool: DeliveryPool;
  log: (line: string) => void;
}

export function pairOrder(round: number): StoredDatabase[] {
  return round % 2 === 1 ? ['empty', 'large'] : ['large', 'empty'];
}

export async function runStoredRounds(ctx: StoredRoundsContext): Promise<StoredPhaseRecord[]> {
  const { options } = ctx;
  const prepare = (database: StoredDatabase): Target => {
    const { server, client } = ctx.targets[database];
    if (!server.store) throw new Error('the receiver has no store');
    if (database === 'empty') return { database, server, client, store: server.store };
    const growth = createGrowthProbe(server.store.probe);
    const store = { ...server.store, probe: growth };
    return { database, server: { ...server, store }, client, store, growth };
  };
  const targets = { empty: prepare('empty'), large: prepare('large') };
  const cursor = createPoolCursor(ctx.pool);
  const settled = new Map<StoredDatabase, { walEnd: string; storage: StorageFacts }>();
  const rounds = (view: PoolView): RoundsContext => ({
    options,
    servers: [targets.empty.server, targets.large.server],
    pool: view,
    log: ctx.log,
    settle: async (server) => {
      const settling = server === targets.empty.server ? targets.empty : targets.large;
      settled.set(settling.database, await settle(settling));
    },
  });
  await targets.large.growth?.rebase(targets.large.store.table);

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

async function settle(target: Target): Promise<{ walEnd: string; storage: StorageFacts }> {
  await waitForFeedPositions(target.client);
  const walEnd = await walPosition(target.client);
  const storage = await readStorage(target.client);
  if (target.growth) await target.growth.rebase(target.store.table);
  else await target.store.probe.truncateAll();
  await target.client.query('CHECKPOINT');
  await sleep(250);
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

/**
 * The large database's store probe: the rows a phase stored are the rows counted now minus
 * those counted after the previous phase (the seeded deliveries stay), and it is never emptied.
 */
interface GrowthProbe extends StoreProbe {
  /** Counts the rows now: the next phase's rows are counted from here. */
  rebase(table: string): Promise<void>;
}

function createGrowthProbe(probe: StoreProbe): GrowthProbe {
  let baseline = 0;
  return {
    count: async (table) => (await probe.count(table)) - baseline,
    rebase: async (table) => {
      baseline = await probe.count(table);
    },
    truncateAll: () =>
      Promise.reject(new Error('the large database is never emptied: that would undo its seeding')),
    close: () => probe.close(),
  };
}

/**
 * Hands out fresh deliveries for the large database. Its rows are kept between phases (emptying
 * it would undo the seeding), so a delivery it has stored must never be sent to it again: each
 * phase gets a view of the pool that starts after the last delivery an earlier view handed out.
 * The empty database is emptied between phases, so a pair's two phases can share one view and
 * send exactly the same deliveries.
 */

interface PoolView extends DeliveryPool {
  /** Index in the whole pool of the view's first delivery. */
  readonly start: number;
  /** How many of the view's deliveries were handed out so far (highest index asked + 1). */
  readonly used: number;
}

export function createPoolCursor(pool: DeliveryPool): {
  /** A view from the first delivery no earlier view used. */
  view(): PoolView;
  /** Moves past everything `view` handed out. */
  consume(view: PoolView): void;
  /** Index in the whole pool of the next fresh delivery. */
  readonly next: number;
} {
  let next = 0;
  return {
    view: () => poolView(pool, next),
    consume(view) {
      next = Math.max(next, view.start + view.used);
    },
    get next() {
      return next;
    },
  };
}

/** The pool from `start` on: index 0 of the view is delivery `start` of the pool. */
function poolView(pool: DeliveryPool, start: number): PoolView {
  let used = 0;
  return {
    start,
    get size() {
      return Math.max(0, pool.size - start);
    },
    get used() {
      return used;
    },
    at(index) {
      used = Math.max(used, index + 1);
      return pool.at(start + index);
    },
    ensure: (count) => pool.ensure(start + count),
  };
}
