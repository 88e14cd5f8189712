import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PRUNE_STEPS } from '../../../src/cli/prune-steps.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { withLease } from '../../../src/lib/database/lease.ts';
import {
  RETENTION_LEASE,
  runPrune,
  type PruneSummary,
} from '../../../src/operations/retention/prune.ts';
import { createPruneMetrics } from '../../../src/operations/retention/prune-metrics.ts';
import {
  createPruneScheduler,
  startScheduledPrune,
} from '../../../src/operations/retention/scheduled-prune.ts';
import { createDatabase, type Db } from '../../../src/lib/database/database.ts';
import { runMain, waitFor } from '../../support/receiver-process.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * How the prune runs: bounded batches within a budget (the next run goes on), one instance at a
 * time (the `retention` lease), on a schedule in the service, and as `npm run prune`.
 */

let database: TestDatabase;
const pools: Db[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(pools.map((db) => db.destroy()));
  await database?.drop();
});

const RAW_ONLY = {
  rawDays: 90,
  feedDays: 0,
  feedAttemptsDays: 0,
  recoveryDays: 0,
  batchSize: 10,
  batchPauseMs: 0,
  runMaxMs: 60_000,
};

/** `n` unmodelled deliveries received 100 days ago, each with its event sent 40 days ago. */
async function seed(n: number): Promise<void> {
  await database.query(
    `TRUNCATE webhook_deliveries, feed_events, feed_endpoint_events, leases,
       quarantined_deliveries CASCADE`,
  );
  await database.query(
    `INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
       raw_body, payload, content_type, headers)
     SELECT g, 'NppReturn', false, now() - interval '100 days' + g * interval '1 second',
       encode(sha256(('body ' || g)::bytea), 'hex'), ('{"n":' || g || '}')::bytea,
       ('{"n":' || g || '}')::jsonb, 'application/json', '{}'
     FROM generate_series(1, $1) AS g`,
    [n],
  );
  await database.query(
    `INSERT INTO feed_events (position, type, event_name, business_key, webhook_id, created_at)
     SELECT g, 'event.unmodelled', 'NppReturn', g::text, g, now() - interval '41 days'
     FROM generate_series(1, $1) AS g`,
    [n],
  );
  // Sent to the endpoint FEED_HTTP_URL declares, its cursor past them all.
  await database.query(
    `INSERT INTO feed_endpoint_events (endpoint_id, position, event_id, type, event_name,
       business_key, state, attempts, sent_at)
     SELECT ep.id, e.position, e.id, e.type, e.event_name, e.business_key, 'sent', 1,
       now() - interval '40 days'
     FROM feed_events e, feed_endpoints ep WHERE ep.name = 'configured'`,
  );
  await database.query(`UPDATE feed_endpoints SET fanned_through = $1 WHERE name = 'configured'`, [
    n,
  ]);
}

async function unpruned(): Promise<number> {
  const [row] = await database.query<{ n: string }>(
    'SELECT count(*) AS n FROM webhook_deliveries WHERE pruned_at IS NULL',
  );
  return Number(row!.n);
}

function pool(): Db {
  const db = createDatabase({ url: database.url, poolMax: 3 });
  pools.push(db);
  return db;
}

function scheduler(
  db: Db,
  retention = RAW_ONLY,
  onRun?: (s: PruneSummary) => void,
  registry = new Registry(),
) {
  return createPruneScheduler({
    db,
    intervalMs: 60_000,
    prune: { steps: PRUNE_STEPS, retention, relayConfigured: true },
    logger: createLogger('silent'),
    metrics: createPruneMetrics(registry),
    random: () => 0,
    ...(onRun && { onRun }),
  });
}

describe('bounded batches', () => {
  it('when a run has a budget of batches, then it stops there, and the next run goes on where it left off until nothing is left', async () => {
    await seed(25);
    const run = () =>
      runPrune({
        db: database.db,
        steps: PRUNE_STEPS,
        retention: RAW_ONLY,
        relayConfigured: true,
        maxBatches: 3,
      });
    // quarantine (1 batch, nothing to do), then deliveries: 2 batches of 10.
    const first = await run();
    expect(first).toMatchObject({ complete: false, stoppedBy: 'budget', batches: 3 });
    expect(first.steps.find((s) => s.table === 'webhook_deliveries')).toMatchObject({
      rows: 20,
      batches: 2,
      status: 'partial',
    });
    expect(await unpruned()).toBe(5);
    const second = await run();
    expect(second.complete).toBe(true);
    expect(second.steps.find((s) => s.table === 'webhook_deliveries')?.rows).toBe(5);
    expect(await unpruned()).toBe(0);
  });

  it('when a run has used its time, then it starts no further batch', async () => {
    await seed(50);
    let clock = 0;
    const summary = await runPrune({
      db: database.db,
      steps: PRUNE_STEPS,
      retention: { ...RAW_ONLY, runMaxMs: 1000 },
      relayConfigured: true,
      now: () => (clock += 100),
    });
    expect(summary).toMatchObject({ complete: false, stoppedBy: 'budget' });
    const pruned = 50 - (await unpruned());
    expect(pruned).toBeGreaterThan(0);
    expect(pruned).toBeLessThan(50);
    expect(pruned % 10).toBe(0); // whole batches of RETENTION_BATCH_SIZE
  });

  it('when asked to stop (shutdown) during a run, then it stops after the batch in progress', async () => {
    await seed(60);
    const summaries: PruneSummary[] = [];
    const s = scheduler(pool(), { ...RAW_ONLY, batchPauseMs: 300 }, (r) => summaries.push(r));
    const ticking = s.tick();
    await waitFor(async () => (await unpruned()) < 60, 'a first batch');
    await s.stop();
    expect(await ticking).toBe('ran');
    expect(summaries[0]).toMatchObject({ complete: false, stoppedBy: 'stopped' });
    expect(await unpruned()).toBeGreaterThan(0);
  });
});

describe('one instance at a time', () => {
  it('when two instances tick at the same moment, then one prunes and the other skips', async () => {
    await seed(40);
    const slow = { ...RAW_ONLY, batchPauseMs: 100 };
    const a = scheduler(pool(), slow);
    const b = scheduler(pool(), slow);
    const outcomes = await Promise.all([a.tick(), b.tick()]);
    expect(outcomes.sort()).toEqual(['ran', 'skipped']);
    expect(await unpruned()).toBe(0);
  });

  it('when another holds the retention lease, then a tick prunes nothing; once released, it prunes', async () => {
    await seed(5);
    const s = scheduler(pool());
    const inside = await withLease(pool(), RETENTION_LEASE, () => s.tick());
    expect(inside).toEqual({ ran: true, result: 'skipped' });
    expect(await unpruned()).toBe(5);
    expect(await s.tick()).toBe('ran');
    expect(await unpruned()).toBe(0);
  });
});

describe('the service schedule', () => {
  it('when started, then it runs after a random part of the interval and counts the run', async () => {
    await seed(5);
    const registry = new Registry();
    const scheduled = startScheduledPrune({
      config: {
        retention: { ...RAW_ONLY, intervalMs: 60_000 },
        feed: { relay: undefined },
      },
      db: pool(),
      steps: PRUNE_STEPS,
      logger: createLogger('silent'),
      registry,
      random: () => 0,
    });
    expect(scheduled).toBeDefined();
    await waitFor(async () => (await unpruned()) === 0, 'the first scheduled run');
    await waitFor(
      async () =>
        (await registry.metrics()).includes('retention_prune_runs_total{result="complete"} 1'),
      'the run counted',
    );
    expect(await registry.metrics()).toContain(
      'retention_pruned_rows_total{table="webhook_deliveries"} 5',
    );
    await scheduled?.stop();
  });

  it('when RETENTION_INTERVAL_MS is 0 or every retention is 0, then nothing is scheduled', () => {
    const deps = {
      db: pool(),
      steps: PRUNE_STEPS,
      logger: createLogger('silent'),
      registry: new Registry(),
    };
    const feed = { relay: undefined } as never;
    expect(
      startScheduledPrune({ ...deps, config: { retention: { ...RAW_ONLY, intervalMs: 0 }, feed } }),
    ).toBeUndefined();
    expect(
      startScheduledPrune({
        ...deps,
        config: {
          retention: { ...RAW_ONLY, rawDays: 0, intervalMs: 1000 },
          feed,
        },
      }),
    ).toBeUndefined();
  });
});

describe('npm run prune', () => {
  const env = () => ({
    DATABASE_URL: database.url,
    RETENTION_BATCH_SIZE: '10',
    RETENTION_BATCH_PAUSE_MS: '0',
  });
  const prune = async (args: string[], extra: Record<string, string> = {}) => {
    const running = runMain('prune', { ...env(), ...extra }, { args });
    const code = await running.exited;
    return { code, output: running.output() };
  };

  beforeEach(() => seed(25));

  it('when asked for --help, then it prints the usage and exits 0; a bad option exits 2', async () => {
    const help = await prune(['--help']);
    expect(help.code).toBe(0);
    expect(help.output).toContain('usage: npm run prune');
    expect((await prune(['--bogus'])).code).toBe(2);
    expect((await prune(['--max-batches', 'many'])).code).toBe(2);
    expect((await prune([], { RETENTION_RAW_DAYS: '-1' })).code).toBe(2);
  });

  it('when run with --dry-run, then it counts what would go and changes nothing', async () => {
    const { code, output } = await prune(['--dry-run']);
    expect(code).toBe(0);
    expect(output).toContain('webhook_deliveries: 25 would be pruned');
    expect(output).toContain('feed_events: 25 would be deleted');
    expect(await unpruned()).toBe(25);
    expect(await database.count('feed_events')).toBe(25);
  });

  it('when run, then it prunes in batches with progress on stderr and exits 0; with a budget too small, exits 1 and the next run goes on', async () => {
    const partial = await prune(['--max-batches', '2']);
    expect(partial.code).toBe(1);
    expect(partial.output).toContain('run it again');
    const done = await prune([]);
    expect(done.code).toBe(0);
    expect(done.output).toMatch(/webhook_deliveries: 25 pruned in \d+ batches/);
    expect(await unpruned()).toBe(0);
    expect(await database.count('feed_events')).toBe(0);
  });

  it('when another prune holds the lease, then it exits 1 and changes nothing', async () => {
    const { code, output } = await withLease(pool(), RETENTION_LEASE, () => prune([])).then(
      (outcome) => (outcome.ran ? outcome.result : { code: -1, output: '' }),
    );
    expect(code).toBe(1);
    expect(output).toContain('another prune is running');
    expect(await unpruned()).toBe(25);
  });
});
