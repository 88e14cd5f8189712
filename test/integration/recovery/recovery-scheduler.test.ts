import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { createLogger } from '../../../src/lib/logger.ts';
import { createRecoveryMetrics } from '../../../src/platform/recovery/recovery-metrics.ts';
import { createRecoveryScheduler } from '../../../src/platform/recovery/recovery-scheduler.ts';
import type { RecoverySummary } from '../../../src/platform/recovery/run-recovery.ts';
import { createDatabase, type Db } from '../../../src/lib/database/database.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

let database: TestDatabase;
const pools: Db[] = [];
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(pools.map((db) => db.destroy()));
  await database?.drop();
});

const summary = (ok = true): RecoverySummary => ({
  days: ['2026-11-22'],
  notifications: {
    seen: 3,
    alreadyStored: 1,
    quarantined: 0,
    inProgress: 0,
    waiting: 0,
    overBudget: 0,
    resent: 2,
    retried: 0,
    failed: ok ? 0 : 1,
    unreadable: 0,
    duplicates: 0,
  },
  payto: { receipts: 0, matched: 0, unmatched: 0, unreadable: 0 },
  errors: [],
  ok,
  needsAttention: !ok,
});

/** One service instance: its own pool (as a separate process has), registry and scheduler. */
function instance(run: () => Promise<RecoverySummary>, intervalMs = 60_000) {
  const db = createDatabase({ url: database.url, poolMax: 3 });
  pools.push(db);
  const registry = new Registry();
  const scheduler = createRecoveryScheduler({
    db,
    intervalMs,
    run,
    logger: createLogger('silent'),
    metrics: createRecoveryMetrics(registry),
    random: () => 0,
  });
  return { scheduler, registry };
}

describe('scheduled recovery across instances (the recovery lease)', () => {
  it('when two instances tick at the same moment, then exactly one runs and the other skips', async () => {
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const run = async () => {
      runs += 1;
      await gate;
      return summary();
    };
    const a = instance(run);
    const b = instance(run);
    const first = a.scheduler.tick();
    // Give the first tick time to take the lease before the second tries.
    await new Promise((r) => setTimeout(r, 200));
    const second = await b.scheduler.tick();
    release();
    expect([await first, second]).toEqual(['ran', 'skipped']);
    expect(runs).toBe(1);
    expect(await b.registry.getSingleMetricAsString('recovery_runs_total')).toContain(
      'result="skipped"} 1',
    );
    // The lease was released: the other instance runs the next time.
    expect(await b.scheduler.tick()).toBe('ran');
    expect(runs).toBe(2);
  });

  it('when a run succeeds, then the metrics count what was recovered and the time of the last success', async () => {
    const { scheduler, registry } = instance(() => Promise.resolve(summary(true)));
    await scheduler.tick();
    const text = await registry.metrics();
    expect(text).toContain('recovery_notifications_total{result="recovered"} 2');
    expect(text).toMatch(/recovery_last_success_timestamp_seconds \d{10}/);
  });

  it('when a run leaves something unrecovered or crashes, then it is counted as failed / error and the last success is not moved', async () => {
    let crash = false;
    const { scheduler, registry } = instance(() =>
      crash ? Promise.reject(new Error('boom')) : Promise.resolve(summary(false)),
    );
    expect(await scheduler.tick()).toBe('ran');
    crash = true;
    expect(await scheduler.tick()).toBe('error');
    const text = await registry.metrics();
    expect(text).toContain('recovery_runs_total{result="failed"} 1');
    expect(text).toContain('recovery_runs_total{result="error"} 1');
    expect(text).toContain('recovery_notifications_total{result="failed"} 1');
    expect(text).toContain('recovery_last_success_timestamp_seconds 0');
    // A crashed run released the lease too.
    crash = false;
    expect(await instance(() => Promise.resolve(summary())).scheduler.tick()).toBe('ran');
  });

  it('when a run leaves notifications for the next one because its resend budget ran out, then it is counted as waiting_on_budget, not ok and not failed', async () => {
    const overBudget = summary(true);
    overBudget.notifications.overBudget = 7;
    overBudget.ok = false;
    const { scheduler, registry } = instance(() => Promise.resolve(overBudget));
    expect(await scheduler.tick()).toBe('ran');
    const text = await registry.metrics();
    expect(text).toContain('recovery_runs_total{result="waiting_on_budget"} 1');
    expect(text).toContain('recovery_runs_total{result="failed"} 0');
    expect(text).toContain('recovery_runs_total{result="ok"} 0');
    expect(text).toContain('recovery_last_success_timestamp_seconds 0');
  });

  it('when started, then it runs on its interval until stopped, never two runs at once', async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    const { scheduler } = instance(async () => {
      running += 1;
      most = Math.max(most, running);
      runs += 1;
      await new Promise((r) => setTimeout(r, 30));
      running -= 1;
      return summary();
    }, 20);
    scheduler.start();
    const deadline = Date.now() + 10_000;
    while (runs < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await scheduler.stop();
    const after = runs;
    await new Promise((r) => setTimeout(r, 100));
    expect(after).toBeGreaterThanOrEqual(3);
    expect(runs).toBe(after);
    expect(most).toBe(1);
  });

  it('when the service starts, then no recovery runs in the first interval (the database may still be settling), and one runs after it', async () => {
    const ranAt: number[] = [];
    const intervalMs = 400;
    const { scheduler } = instance(() => {
      ranAt.push(Date.now());
      return Promise.resolve(summary());
    }, intervalMs);
    const startedAt = Date.now();
    scheduler.start();
    try {
      await new Promise((r) => setTimeout(r, intervalMs - 100));
      expect(ranAt).toEqual([]);
      const deadline = Date.now() + 10_000;
      while (ranAt.length === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      expect(ranAt[0]! - startedAt).toBeGreaterThanOrEqual(intervalMs);
    } finally {
      await scheduler.stop();
    }
  });
});
