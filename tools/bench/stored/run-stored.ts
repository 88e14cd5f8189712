import type { KeyObject } from 'node:crypto';
import pg from 'pg';
import type { Cleanup } from '../core/cleanup.ts';
import type { DeliveryPool } from '../core/deliveries.ts';
import type { MachineFacts } from '../core/machine.ts';
import type { BenchOptions } from '../core/options.ts';
import {
  benchDatabaseName,
  createBenchDatabase,
  databaseUrl,
  dropBenchDatabase,
  type PostgresFacts,
} from '../core/postgres.ts';
import { readMemory } from '../core/proc-stats.ts';
import { launchServers, type BenchServer } from '../core/servers.ts';
import { cloneStoredDatabase, ensureStoredDatabase, type StoredCache } from './cache.ts';
import { readStorage } from './database-facts.ts';
import { findPostmaster, measureIdle } from './idle.ts';
import { runStoredRounds, type StoredDatabase } from './load-rounds.ts';
import { withHeartbeat, stderrProgress } from './progress.ts';
import { publishStored } from './report.ts';
import { seedDatabase, type SeedReport } from './seed.ts';
import { summariseStored } from './summary.ts';

/**
 * `npm run bench -- --stored=N`: the receiver on an empty database and on one holding N
 * deliveries, side by side in one run (docs/benchmark.md, "On a database that holds N"):
 *
 * 1. the seeded database, kept between runs (cache.ts), reused or seeded (seed.ts);
 * 2. a copy of it for this run to write to, and a fresh empty database;
 * 3. a receiver on each, the loaded rounds in alternating pairs (load-rounds.ts);
 * 4. the idle windows, one receiver at a time (idle.ts);
 * 5. the ratios against the targets (summary.ts), printed and written (report.ts).
 */

interface StoredRunInput {
  options: BenchOptions & { stored: number };
  projectDir: string;
  benchDir: string;
  logDir: string;
  publicKey: KeyObject;
  privateKeyPem: string;
  secret: string;
  /** The load's pre-signed deliveries (numbered from 0: never one the seeding stored). */
  pool: DeliveryPool;
  cleanup: Cleanup;
  log: (line: string) => void;
  code: { commit: string; uncommittedChanges: boolean };
  machine: MachineFacts;
  postgres: PostgresFacts;
  startedAt: Date;
}

export async function runStored(input: StoredRunInput): Promise<void> {
  const { options, log, cleanup } = input;
  const adminUrl = options.adminDatabaseUrl;
  const progress = stderrProgress;
  const launch = async (database: string, instance: string): Promise<BenchServer> => {
    const [server] = await launchServers(
      options,
      {
        projectDir: input.projectDir,
        benchDir: input.benchDir,
        logDir: input.logDir,
        adminUrl,
        poolMax: options.poolMax,
        publicKey: input.publicKey,
        secret: input.secret,
        cleanup,
        database,
        instance,
      },
      log,
    );
    if (!server) throw new Error('no receiver was started');
    return server;
  };

  const postmaster = await findPostmaster(adminUrl);
  let seed: SeedReport | undefined;
  const cache = await ensureStoredDatabase({
    adminUrl,
    deliveries: options.stored,
    reseed: options.reseed,
    projectDir: input.projectDir,
    commit: input.code.commit,
    progress,
    seed: async (database) => {
      seed = await seedDatabase({
        adminUrl,
        database,
        deliveries: options.stored,
        signing: { privateKeyPem: input.privateKeyPem, secret: input.secret },
        progress,
        startReceiver: async (name) => {
          const server = await launch(name, 'receiver-seed');
          // Its connection would keep the database from being copied.
          await server.store?.probe.close();
          return { url: server.process.url, pid: server.process.pid, stop: server.process.stop };
        },
      });
      return seed;
    },
  });

  const databases = await prepareDatabases(adminUrl, cache, cleanup);
  const clients = {
    empty: await connect(adminUrl, databases.empty, cleanup),
    large: await connect(adminUrl, databases.large, cleanup),
  };
  const largeAtStart = await readStorage(clients.large);
  const [empty, large] = await Promise.all([
    launch(databases.empty, 'receiver-empty'),
    launch(databases.large, 'receiver-large'),
    input.pool.ensure(options.connections * 200),
  ]);
  const records = await runStoredRounds({
    options,
    targets: {
      empty: { server: empty, client: clients.empty },
      large: { server: large, client: clients.large },
    },
    pool: input.pool,
    log,
  });
  const memory = { empty: readMemory(empty.process.pid), large: readMemory(large.process.pid) };
  await Promise.all([empty.process.stop(), large.process.stop()]);

  // The idle windows start from the same tidy state on both: the empty database empty, both
  // vacuumed (so no autovacuum owed to the load lands in a window) and checkpointed.
  await empty.store?.probe.truncateAll();
  for (const database of ['empty', 'large'] as const) {
    await withHeartbeat(progress, `VACUUM ANALYZE of the ${database} database`, () =>
      clients[database].query('VACUUM (ANALYZE)'),
    );
  }
  await clients.large.query('CHECKPOINT');
  const idle = await measureIdle({
    adminUrl,
    postmaster,
    rounds: options.rounds,
    windowSeconds: options.idleDuration,
    databases,
    launch: (database) => launch(databases[database], `receiver-idle-${database}`),
    log,
  });

  const summary = summariseStored({ records, idle, largeAtStart, rate: options.rate });
  await publishStored(
    {
      startedAt: input.startedAt,
      finishedAt: new Date(),
      machine: input.machine,
      postgres: input.postgres,
      code: input.code,
      options,
      cache,
      seed,
      largeAtStart,
      records,
      idle,
      memory,
      summary,
    },
    input,
    log,
  );
  log(
    `kept for later runs: ${cache.name} (${(cache.sizeBytes / 1e9).toFixed(2)} GB); ` +
      `DROP DATABASE ${cache.name} frees it`,
  );
}

/** A copy of the kept database to measure on (and write to), and an empty one, both dropped. */
async function prepareDatabases(
  adminUrl: string,
  cache: StoredCache,
  cleanup: Cleanup,
): Promise<Record<StoredDatabase, string>> {
  const large = benchDatabaseName('large');
  cleanup.add(`drop database ${large}`, () => dropBenchDatabase(adminUrl, large));
  await cloneStoredDatabase(adminUrl, cache.name, large, stderrProgress);
  const empty = await createBenchDatabase(adminUrl, 'empty');
  cleanup.add(`drop database ${empty}`, () => dropBenchDatabase(adminUrl, empty));
  return { empty, large };
}

async function connect(adminUrl: string, database: string, cleanup: Cleanup): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl(adminUrl, database) });
  await client.connect();
  cleanup.add(`close connection to ${database}`, () => client.end());
  return client;
}
