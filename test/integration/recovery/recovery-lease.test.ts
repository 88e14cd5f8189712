import { setTimeout as delay } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/lib/logger.ts';
import { createProviderClient } from '../../../src/platform/client/provider-client.ts';
import { withProviderTables } from '../../../src/platform/storage/tables.ts';
import type { Lease, LeaseOptions } from '../../../src/lib/database/lease.ts';
import { createRecoveryMetrics } from '../../../src/platform/recovery/recovery-metrics.ts';
import { createRecoveryScheduler } from '../../../src/platform/recovery/recovery-scheduler.ts';
import { runRecovery, type RecoverySummary } from '../../../src/platform/recovery/run-recovery.ts';
import { createDatabase, type Db } from '../../../src/lib/database/database.ts';
import type { PooledKysely } from '../../../src/lib/database/prepared-statement.ts';
import {
  sendJson,
  startScriptedServer,
  type ScriptedServer,
} from '../../support/scripted-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * One recovery at a time across instances, even when the holder's database connections die: the
 * lease is a row, not a session lock. Each instance has its own pool (as a separate process
 * has), named by `application_name` so the test can find its connections in pg_stat_activity
 * and kill them with pg_terminate_backend. The platform is scripted on 127.0.0.1 and its resend
 * answer can be held back, to keep a run going while the test acts. Every wait is bounded.
 */
const DAY = '2026-11-22';

let database: TestDatabase;
const pools: Db[] = [];
const servers: ScriptedServer[] = [];
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(pools.map((db) => db.destroy()));
  await database?.drop();
});
beforeEach(() =>
  database.query(
    'TRUNCATE recovery_attempts, recovery_runs, leases, recovery_row_problems, recovery_progress CASCADE',
  ),
);
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A platform listing ids 1..3 as Error; the first resend is answered only once released. */
async function startPlatform() {
  const resends: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = await startScriptedServer(async (request, response) => {
    const url = new URL(request.path, 'http://platform');
    if (url.pathname === `/subscriptions/v1/report/${DAY}`) {
      const notifications = ['1', '2', '3'].map((webhookId) => ({
        webhookId,
        eventName: 'NPPReceivePayment',
        status: 'Error',
      }));
      return sendJson(response, 200, { status: 'Ok', notifications });
    }
    const resend = /^\/subscriptions\/v2\/resend\/(\d+)$/.exec(url.pathname);
    if (resend) {
      resends.push(resend[1]!);
      if (resends.length === 1) await Promise.race([released, delay(10_000)]);
      return sendJson(response, 200, { status: 'Ok' });
    }
    sendJson(response, 404, { status: 'NotFound' });
  });
  servers.push(server);
  return { url: server.url, resends, release };
}

type Platform = Awaited<ReturnType<typeof startPlatform>>;

/** One service instance: its own named pool, registry and scheduler running real recovery. */
function instance(name: string, platform: Platform, lease: LeaseOptions = {}) {
  const url = new URL(database.url);
  url.searchParams.set('application_name', name);
  const db = createDatabase({ url: url.toString(), poolMax: 3 });
  pools.push(db);
  const runs: RecoverySummary[] = [];
  const scheduler = createRecoveryScheduler({
    db,
    intervalMs: 60_000,
    logger: createLogger('silent'),
    metrics: createRecoveryMetrics(new Registry()),
    lease,
    run: async (held: Lease) => {
      const summary = await runRecovery({
        db: withProviderTables(db),
        client: createProviderClient({
          baseUrl: platform.url,
          authUrl: platform.url,
          apiKey: 'test-api-key',
          mAccount: undefined,
          timeoutMs: 15_000,
          retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
        }),
        logger: createLogger('silent'),
        days: [DAY],
        payto: false,
        lease: held,
      });
      runs.push(summary);
      return summary;
    },
  });
  return { db, scheduler, runs, pool: (db as unknown as PooledKysely<unknown>).pool };
}

async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await delay(10);
  }
}

describe('recovery lease across instances', () => {
  it("when the holder's database connections are killed mid-run, then a second instance still skips, and every notification is resent once", async () => {
    const platform = await startPlatform();
    const a = instance('recovery-lease-a', platform);
    const b = instance('recovery-lease-b', platform);
    const first = a.scheduler.tick();
    await until(() => platform.resends.length === 1);

    // A is waiting for the platform's answer: kill every connection it has.
    const pids = await database.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE application_name = 'recovery-lease-a'`,
    );
    expect(pids.length).toBeGreaterThanOrEqual(1);
    for (const { pid } of pids) {
      await database.query('SELECT pg_terminate_backend($1)', [pid]);
    }
    await until(async () => {
      const left = await database.query(
        `SELECT 1 FROM pg_stat_activity WHERE application_name = 'recovery-lease-a'`,
      );
      return left.length === 0 && a.pool.idleCount === 0;
    });

    expect(await b.scheduler.tick()).toBe('skipped');
    expect(b.runs).toEqual([]);

    platform.release();
    expect(await first).toBe('ran');
    expect(platform.resends).toEqual(['1', '2', '3']);
    expect(a.runs[0]).toMatchObject({ ok: true, notifications: { resent: 3 } });
    // Released at the end: the next tick anywhere runs (and finds nothing to resend yet).
    expect(await database.count('leases')).toBe(0);
    expect(await b.scheduler.tick()).toBe('ran');
    expect(platform.resends).toHaveLength(3);
  });

  it('when a run loses its lease (taken over), then it asks for no further resend and records itself as failed: lease lost', async () => {
    const platform = await startPlatform();
    const a = instance('recovery-lease-c', platform);
    const first = a.scheduler.tick();
    await until(() => platform.resends.length === 1);
    await database.query(
      `UPDATE leases SET holder = 'intruder', expires_at = now() + interval '1 hour'`,
    );
    platform.release();
    expect(await first).toBe('ran');

    expect(platform.resends).toEqual(['1']);
    expect(a.runs[0]).toMatchObject({ ok: false, leaseLost: true });
    expect(a.runs[0]!.errors).toEqual([expect.stringContaining('lease lost')]);
    const [run] = await database.query<{ ok: boolean; summary: { leaseLost: boolean } }>(
      'SELECT ok, summary FROM recovery_runs',
    );
    expect(run).toMatchObject({ ok: false, summary: { leaseLost: true } });
    // The run did not release a lease it no longer holds.
    expect(await database.query('SELECT holder FROM leases')).toEqual([{ holder: 'intruder' }]);
    expect(await instance('recovery-lease-d', platform).scheduler.tick()).toBe('skipped');
  });

  it('when a run outlasts the lease time, then renewals keep it; when a holder died, its lease is taken once expired', async () => {
    const platform = await startPlatform();
    const a = instance('recovery-lease-e', platform, { ttlMs: 400, renewEveryMs: 50 });
    const b = instance('recovery-lease-f', platform, { ttlMs: 400, renewEveryMs: 50 });
    const first = a.scheduler.tick();
    await until(() => platform.resends.length === 1);
    await delay(1200); // three lease times
    expect(await b.scheduler.tick()).toBe('skipped');
    platform.release();
    expect(await first).toBe('ran');

    // A holder that died leaves its row; it is free once expired, not before.
    await database.query(
      `INSERT INTO leases (name, holder, acquired_at, expires_at)
       VALUES ('recovery', 'dead', now(), now() + interval '1 hour')`,
    );
    expect(await b.scheduler.tick()).toBe('skipped');
    await database.query(`UPDATE leases SET expires_at = now() - interval '1 second'`);
    expect(await b.scheduler.tick()).toBe('ran');
  });
});
