import { setTimeout as sleep } from 'node:timers/promises';
import { postgresPids, withClient } from '../core/postgres.ts';
import {
  clusterCpuSeconds,
  cpuOfNewPids,
  parentPid,
  preciseCpuSeconds,
  readMachineBusySeconds,
} from '../core/proc-stats.ts';
import type { BenchServer } from '../core/servers.ts';
import { pairOrder, type StoredDatabase } from './load-rounds.ts';

/**
 * What a receiver costs doing nothing: started on one database, left to settle
 * (IDLE_SETTLE_SECONDS: start-up, the first feed and gauge queries, the pool filling), then
 * watched for a window with no deliveries. Only one receiver runs at a time, so the Postgres
 * processes' CPU is this receiver's idle work (its polling, gauges, scheduled jobs) plus the
 * cluster's own housekeeping, and nobody else's load. Windows alternate between the databases
 * as the load pairs do.
 */

export const IDLE_SETTLE_SECONDS = 10;

export interface IdleWindow {
  database: StoredDatabase;
  round: number;
  seconds: number;
  /** CPU seconds over the window. */
  cpu: {
    /** The receiver process, all its threads. */
    receiver: number;
    /** Every process of the Postgres cluster (postmaster, backends, background, exited ones). */
    postgres: number;
    /** The backends connected to this database (a subset of `postgres`). */
    postgresBackends: number;
    /** The whole machine: minus the above and the harness, someone else's work. */
    machine: number;
  };
}

interface IdleContext {
  adminUrl: string;
  /** The cluster's postmaster (findPostmaster), looked up before anything is measured. */
  postmaster: number;
  rounds: number;
  windowSeconds: number;
  databases: Record<StoredDatabase, string>;
  /** Starts a receiver on the database; stopped (and its probe closed) after its window. */
  launch(database: StoredDatabase): Promise<BenchServer>;
  log: (line: string) => void;
}

export async function measureIdle(ctx: IdleContext): Promise<IdleWindow[]> {
  const { postmaster } = ctx;
  const windows: IdleWindow[] = [];
  for (let round = 1; round <= ctx.rounds; round += 1) {
    for (const database of pairOrder(round)) {
      const server = await ctx.launch(database);
      try {
        await sleep(IDLE_SETTLE_SECONDS * 1000);
        windows.push(await watch(ctx, server, postmaster, database, round));
      } finally {
        await server.process.stop();
        await server.store?.probe.close();
      }
      ctx.log(describeWindow(windows.at(-1)));
    }
  }
  return windows;
}

async function watch(
  ctx: IdleContext,
  server: BenchServer,
  postmaster: number,
  database: StoredDatabase,
  round: number,
): Promise<IdleWindow> {
  const pid = server.process.pid;
  const backends = await postgresPids(ctx.adminUrl, ctx.databases[database]);
  const read = () => ({
    receiver: preciseCpuSeconds(pid) ?? 0,
    postgres: clusterCpuSeconds(postmaster),
    backends: backends.backends.reduce((sum, b) => sum + (preciseCpuSeconds(b) ?? 0), 0),
    machine: readMachineBusySeconds(),
    at: performance.now(),
  });
  const before = read();
  await sleep(ctx.windowSeconds * 1000);
  const after = read();
  // Connections the receiver opened during the window (its pool grows back after an idle
  // timeout) count in full, as in the load phases.
  const later = await postgresPids(ctx.adminUrl, ctx.databases[database]);
  const born = cpuOfNewPids(backends.backends, later.backends);
  const exit = server.process.exitReport();
  if (exit) throw new Error(`the receiver stopped during its idle window: ${exit}`);
  return {
    database,
    round,
    seconds: (after.at - before.at) / 1000,
    cpu: {
      receiver: after.receiver - before.receiver,
      postgres: after.postgres - before.postgres,
      postgresBackends: after.backends - before.backends + born,
      machine: after.machine - before.machine,
    },
  };
}

/**
 * The postmaster: the parent of any backend, such as the one this query runs in. Only when
 * Postgres runs on this machine, in this PID namespace: the run looks it up first, so a remote
 * Postgres stops it before anything is seeded or measured.
 */
export async function findPostmaster(adminUrl: string): Promise<number> {
  // Read while the connection is open: its backend exits as soon as it closes.
  const postmaster = await withClient(adminUrl, async (client) => {
    const result = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const backend = result.rows[0]?.pid;
    return backend === undefined ? undefined : parentPid(backend);
  });
  if (!postmaster || postmaster <= 1) {
    throw new Error(
      'cannot find the Postgres postmaster in /proc: --stored measures the idle cost of ' +
        'Postgres on this machine, so Postgres must run here (not in a VM or another PID namespace)',
    );
  }
  return postmaster;
}

function describeWindow(window: IdleWindow | undefined): string {
  if (!window) return '';
  const ms = (seconds: number) => `${((1000 * seconds) / window.seconds).toFixed(1)} ms/s`;
  return (
    `idle  ${window.round} ${window.database.padEnd(12)} ${window.seconds.toFixed(1)} s: ` +
    `receiver ${ms(window.cpu.receiver)}, Postgres ${ms(window.cpu.postgres)} ` +
    `(its backends ${ms(window.cpu.postgresBackends)}), machine ${ms(window.cpu.machine)}`
  );
}
