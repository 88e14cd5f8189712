import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigrator } from '../../../src/lib/database/migrator.ts';
import {
  createTestDatabase,
  migratedUpToBefore,
  type TestDatabase,
} from '../../support/test-database.ts';

/**
 * Migration 2026-11-29T01-00-00 (feed endpoints) moves the one relay's state on feed_events to
 * the endpoint FEED_HTTP_URL declares (`configured`): a row for every event the old relay sent,
 * dead-lettered or attempted, its cursor just below the first event it never tried (those are
 * fanned out by the new relay), paused exactly when the old relay was; and it pauses the old
 * relay, so an instance of the previous release still running sends nothing the new one sends.
 */
const ENDPOINTS = '2026-11-29T01-00-00_feed-endpoints';

/** Feed events as the previous release left them; `state` is its relay_state. */
interface OldEvent {
  position: number | null;
  key: string;
  state: 'pending' | 'sent' | 'dead';
  attempts: number;
  claimed?: boolean;
  sentDaysAgo?: number;
}

async function writtenByPreviousRelease(
  database: TestDatabase,
  events: OldEvent[],
  relay: { paused: boolean; reason: string | null },
): Promise<void> {
  for (const e of events) {
    await database.query(
      `INSERT INTO feed_events (position, type, event_name, business_key, webhook_id,
         created_at, relay_state, attempts, first_attempt_at, next_attempt_at, claimed_by,
         claimed_until, last_error, sent_at, dead_at)
       VALUES ($1, 'payment.received', 'NPPReceivePayment', $2, 1,
         now() - ($5 + 1) * interval '1 day', $3::text, $4::int,
         CASE WHEN $4 > 0 THEN now() - $5 * interval '1 day' END,
         CASE WHEN $3 = 'pending' AND $4 > 0 THEN now() + interval '1 minute' END,
         CASE WHEN $6 THEN 'old-instance' END,
         CASE WHEN $6 THEN now() + interval '30 seconds' END,
         CASE WHEN $3 <> 'sent' AND $4 > 0 THEN 'HTTP 503' END,
         CASE WHEN $3 = 'sent' THEN now() - $5 * interval '1 day' END,
         CASE WHEN $3 = 'dead' THEN now() - $5 * interval '1 day' END)`,
      [e.position, e.key, e.state, e.attempts, e.sentDaysAgo ?? 10, e.claimed ?? false],
    );
  }
  await database.query('UPDATE feed_relay_control SET paused = $1, reason = $2', [
    relay.paused,
    relay.reason,
  ]);
}

async function migrate(database: TestDatabase): Promise<void> {
  const { error } = await createMigrator(database.db).migrateTo(ENDPOINTS);
  if (error) throw error;
}

const configured = (database: TestDatabase) =>
  database.query<Record<string, unknown>>(
    `SELECT name, kind, target, types, secrets, declared_by, enabled, paused, paused_reason,
       fanned_through::int AS fanned_through
     FROM feed_endpoints`,
  );

const rowsOf = (database: TestDatabase) =>
  database.query<Record<string, unknown>>(
    `SELECT r.position::int AS position, r.business_key, r.state, r.attempts,
       r.first_attempt_at IS NOT NULL AS first_attempt, r.next_attempt_at IS NOT NULL AS next_attempt,
       r.claimed_by, r.last_error, r.sent_at IS NOT NULL AS sent, r.dead_at IS NOT NULL AS dead,
       r.event_id = e.id AS same_event, r.type = e.type AS same_type, r.replays
     FROM feed_endpoint_events r JOIN feed_events e ON e.position = r.position
     ORDER BY r.position`,
  );

describe('upgrading a feed whose relay was running', () => {
  let database: TestDatabase;
  let before: unknown[];

  beforeAll(async () => {
    database = await createTestDatabase(migratedUpToBefore(ENDPOINTS));
    await writtenByPreviousRelease(
      database,
      [
        { position: 1, key: 'A', state: 'sent', attempts: 1 },
        { position: 2, key: 'B', state: 'dead', attempts: 5 },
        // Attempted and waiting for its retry, claimed by an old instance right now.
        { position: 3, key: 'C', state: 'pending', attempts: 2, claimed: true },
        // Never attempted (behind C's key order, or the relay not yet there).
        { position: 4, key: 'C', state: 'pending', attempts: 0 },
        // Sent out of position order (another key), after the first one never tried.
        { position: 5, key: 'D', state: 'sent', attempts: 1, sentDaysAgo: 0 },
        { position: 6, key: 'E', state: 'pending', attempts: 0 },
        // Committed, not yet numbered.
        { position: null, key: 'F', state: 'pending', attempts: 0 },
      ],
      { paused: false, reason: null },
    );
    before = await database.query('SELECT to_jsonb(e) AS row FROM feed_events e ORDER BY id');
    await migrate(database);
  });
  afterAll(() => database?.drop());

  it('when migrated, then configured is the one endpoint, running, its cursor just below the first event never tried', async () => {
    expect(await configured(database)).toEqual([
      {
        name: 'configured',
        kind: 'http',
        target: null,
        types: ['*'],
        secrets: [],
        declared_by: 'configuration',
        enabled: true,
        paused: false,
        paused_reason: null,
        fanned_through: 3,
      },
    ]);
  });

  it("when migrated, then every event the old relay sent, dead-lettered or attempted has configured's row with its state; events never tried have none", async () => {
    const rows = await rowsOf(database);
    const same = { same_event: true, same_type: true, replays: 0 };
    expect(rows).toEqual([
      {
        position: 1,
        business_key: 'A',
        state: 'sent',
        attempts: 1,
        first_attempt: true,
        next_attempt: false,
        claimed_by: null,
        last_error: null,
        sent: true,
        dead: false,
        ...same,
      },
      {
        position: 2,
        business_key: 'B',
        state: 'dead',
        attempts: 5,
        first_attempt: true,
        next_attempt: false,
        claimed_by: null,
        last_error: 'HTTP 503',
        sent: false,
        dead: true,
        ...same,
      },
      {
        // Its claim belonged to an old instance's relay, now paused: the new relay retries it.
        position: 3,
        business_key: 'C',
        state: 'pending',
        attempts: 2,
        first_attempt: true,
        next_attempt: true,
        claimed_by: null,
        last_error: 'HTTP 503',
        sent: false,
        dead: false,
        ...same,
      },
      {
        position: 5,
        business_key: 'D',
        state: 'sent',
        attempts: 1,
        first_attempt: true,
        next_attempt: false,
        claimed_by: null,
        last_error: null,
        sent: true,
        dead: false,
        ...same,
      },
    ]);
  });

  it('when migrated, then the old relay is paused (an old instance sends nothing more) and feed_events is as it was', async () => {
    const [control] = await database.query<{ paused: boolean; reason: string }>(
      'SELECT paused, reason FROM feed_relay_control',
    );
    expect(control).toEqual({
      paused: true,
      reason: 'superseded by feed endpoints (migration 2026-11-29T01-00-00)',
    });
    expect(
      await database.query('SELECT to_jsonb(e) AS row FROM feed_events e ORDER BY id'),
    ).toEqual(before);
  });

  it("when an old instance's prune calls prune_sent_feed_events, then the new rule holds: the sent head goes with its row, the dead letter stops it", async () => {
    const [pruned] = await database.query<{ n: number; last: string }>(
      "SELECT n, last FROM prune_sent_feed_events(0, now() - interval '2 days', 1000)",
    );
    expect(pruned).toEqual({ n: 1, last: '1' });
    expect(
      (await rowsOf(database)).map((r) => r.position),
      'rows of events kept stay',
    ).toEqual([2, 3, 5]);
    expect(await database.count('feed_endpoint_events')).toBe(3);
  });

  it('when migrated back down, then the old relay runs again as configured did, and the new tables are gone', async () => {
    await database.query("UPDATE feed_endpoints SET paused = true, paused_reason = 'rollback'");
    const { error } = await createMigrator(database.db).migrateDown();
    expect(error).toBeUndefined();
    expect(await database.query('SELECT paused, reason FROM feed_relay_control')).toEqual([
      { paused: true, reason: 'rollback' },
    ]);
    expect(await database.query("SELECT to_regclass('feed_endpoints') AS t")).toEqual([
      { t: null },
    ]);
  });
});

describe('upgrading a feed whose relay was paused, every event sent', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(migratedUpToBefore(ENDPOINTS));
    await writtenByPreviousRelease(
      database,
      [
        { position: 1, key: 'A', state: 'sent', attempts: 1 },
        { position: 2, key: 'B', state: 'sent', attempts: 3 },
      ],
      { paused: true, reason: 'consumer moving' },
    );
    await migrate(database);
  });
  afterAll(() => database?.drop());

  it('when migrated, then configured is paused with the same reason and its cursor is at the last event', async () => {
    expect(await configured(database)).toMatchObject([
      { name: 'configured', paused: true, paused_reason: 'consumer moving', fanned_through: 2 },
    ]);
    expect((await rowsOf(database)).map((r) => [r.position, r.state])).toEqual([
      [1, 'sent'],
      [2, 'sent'],
    ]);
    expect(await database.query('SELECT paused FROM feed_relay_control')).toEqual([
      { paused: true },
    ]);
  });
});

describe('upgrading a feed that never had a relay (a pull consumer only)', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(migratedUpToBefore(ENDPOINTS));
    await writtenByPreviousRelease(
      database,
      [
        { position: 1, key: 'A', state: 'pending', attempts: 0 },
        { position: 2, key: 'B', state: 'pending', attempts: 0 },
      ],
      { paused: false, reason: null },
    );
    await migrate(database);
  });
  afterAll(() => database?.drop());

  it('when migrated, then configured has no row and its cursor is at 0: a relay switched on later sends from the first event (or start-after skips them)', async () => {
    expect(await configured(database)).toMatchObject([
      { name: 'configured', paused: false, fanned_through: 0 },
    ]);
    expect(await database.count('feed_endpoint_events')).toBe(0);
  });
});
