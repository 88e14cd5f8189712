import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/lib/logger.ts';
import { createDatabase, type Db } from '../../../src/lib/database/database.ts';
import { createMigrator, migrateToLatest } from '../../../src/lib/database/migrator.ts';
import { assignPositions, ASSIGNER_LOCK_KEY } from '../../../src/feed/assigner.ts';
import { createFeedNotifier } from '../../../src/feed/feed-notifier.ts';
import { tryLockRefund } from '../../../src/platform/refunds/refund-sender-lock.ts';
import { dropUnsentRefund, lockPayment } from '../../../src/platform/refunds/refunds-repository.ts';
import { resolveRefund } from '../../../src/platform/refunds/resolve-refund.ts';
import { feedEventsPruneStep as feedEventsStep } from '../../../src/feed/prune-steps.ts';
import { withProviderTables } from '../../../src/platform/storage/tables.ts';
import {
  createRolesDatabase,
  INSUFFICIENT_PRIVILEGE,
  outcome,
  type RolesDatabase,
} from '../../support/database-roles.ts';

/**
 * Issue 24, items 8 and 9, tried as an attacker would: the read-only feed role (a merchant's SQL
 * consumer) tries to stop the feed, wake the long polls and take the refund locks; the runtime
 * role tries to rewrite and delete refunds and feed events. The database is an upgrade: migrated
 * (as the owner role) to the last migration before this change, rows written there as the
 * previous release wrote them, then migrated to the latest and roles.sql applied again.
 */

const BEFORE = '2026-11-24T10-00-00_dedup-key-hash';
let roles: RolesDatabase;
let receiver: Db;

async function admin(text: string, params?: unknown[]) {
  return roles.withClient('admin', (c) => c.query(text, params));
}

/** Each statement in one rolled-back transaction, answered with its SQLSTATE or 'ok'. */
async function outcomesAs(
  role: 'receiver' | 'reader',
  statements: string[],
): Promise<Record<string, string>> {
  return roles.withClient(role, async (client) => {
    // Read-only sessions refuse writes before privileges are looked at: the privileges alone.
    await client.query('SET default_transaction_read_only = off');
    await client.query('BEGIN');
    const result: Record<string, string> = {};
    for (const statement of statements) result[statement] = await outcome(client, statement);
    await client.query('ROLLBACK');
    return result;
  });
}

const refused = (statements: string[]) =>
  Object.fromEntries(statements.map((s) => [s, INSUFFICIENT_PRIVILEGE]));

async function addFeedEvent(key: string): Promise<void> {
  await admin(
    `INSERT INTO feed_events (type, event_name, business_key, webhook_id)
     VALUES ('payment.received', 'NPPReceivePayment', $1, 1)`,
    [key],
  );
}

beforeAll(async () => {
  roles = await createRolesDatabase();
  await roles.applyRoles('admin');
  const owner = createDatabase({ url: roles.url('owner'), poolMax: 1 });
  try {
    const { error } = await createMigrator(owner).migrateTo(BEFORE);
    if (error) throw error;
    // The previous release's rows: refunds in each state, sent and pending feed events.
    await admin(
      `INSERT INTO refunds (unique_reference, caller_reference, transaction_id, payment_event,
         amount, state, requested_at, attempts)
       VALUES ('rf-unsent', 'order-unsent', 'TX-OLD', 'NPPReceivePayment', 10, 'pending', now(), 0),
              ('rf-tried', 'order-tried', 'TX-OLD', 'NPPReceivePayment', 20, 'pending', now(), 1),
              ('rf-paid', 'order-paid', 'TX-OLD', 'NPPReceivePayment', 30, 'succeeded', now(), 1)`,
    );
    await admin(
      `INSERT INTO feed_events (position, type, event_name, business_key, webhook_id,
         relay_state, sent_at, created_at)
       VALUES (1, 'payment.received', 'NPPReceivePayment', 'OLD-1', 1, 'sent',
                 now() - interval '10 days', now() - interval '10 days 1 minute'),
              (2, 'payment.received', 'NPPReceivePayment', 'OLD-2', 1, 'sent',
                 now() - interval '1 hour', now() - interval '1 hour 1 minute'),
              (3, 'payment.received', 'NPPReceivePayment', 'OLD-3', 1, 'pending', NULL, now())`,
    );
    await migrateToLatest(owner, createLogger('silent'));
  } finally {
    await owner.destroy();
  }
  await roles.applyRoles('owner');
  receiver = createDatabase({ url: roles.url('receiver'), poolMax: 4 });
}, 120_000);

afterAll(async () => {
  await receiver?.destroy();
  await roles?.drop();
});

describe('the read-only feed role cannot interfere with the service (item 8)', () => {
  it('when the reader holds the assigner advisory lock the previous release used, then the assigner still numbers events, and the reader cannot take the lock the assigner uses', async () => {
    await roles.withClient('reader', async (reader) => {
      await reader.query('SELECT pg_advisory_lock($1)', [ASSIGNER_LOCK_KEY]);
      await addFeedEvent('HELD-1');
      expect(await assignPositions(receiver)).toBe(1);
    });
    expect(
      await outcomesAs('reader', [
        "SELECT name FROM named_locks WHERE name = 'feed-assigner' FOR UPDATE",
        "SELECT name FROM named_locks WHERE name = 'feed-assigner' FOR UPDATE SKIP LOCKED",
        "INSERT INTO named_locks (name) VALUES ('feed-assigner-2')",
        'LOCK TABLE named_locks IN ACCESS EXCLUSIVE MODE',
      ]),
    ).toEqual(
      refused([
        "SELECT name FROM named_locks WHERE name = 'feed-assigner' FOR UPDATE",
        "SELECT name FROM named_locks WHERE name = 'feed-assigner' FOR UPDATE SKIP LOCKED",
        "INSERT INTO named_locks (name) VALUES ('feed-assigner-2')",
        'LOCK TABLE named_locks IN ACCESS EXCLUSIVE MODE',
      ]),
    );
  });

  it('when a session of the service role holds that advisory lock (a previous-release instance during a roll), then this assigner waits its turn', async () => {
    await roles.withClient('receiver', async (old) => {
      await old.query('SELECT pg_advisory_lock($1)', [ASSIGNER_LOCK_KEY]);
      await addFeedEvent('ROLL-1');
      expect(await assignPositions(receiver)).toBe(0);
    });
    expect(await assignPositions(receiver)).toBe(1);
  });

  it('when the reader sends NOTIFY feed_positions (made up, forged, or a genuine payload it heard, sent again), then no long poll wakes; a real assignment still wakes it', async () => {
    const notifier = createFeedNotifier({
      url: roles.url('receiver'),
      logger: createLogger('silent'),
    });
    try {
      const timed = async (ms: number, send: () => Promise<unknown>) => {
        const started = Date.now();
        const waiting = notifier.wait(ms);
        await send();
        await waiting;
        return Date.now() - started;
      };
      // Connected once a real assignment wakes a waiter before its timeout.
      let heard = '';
      await roles.withClient('reader', async (reader) => {
        await reader.query('LISTEN feed_positions');
        reader.on('notification', (message) => (heard = message.payload ?? ''));
        for (let tries = 0; ; tries += 1) {
          await addFeedEvent(`WAKE-${tries}`);
          if ((await timed(3000, () => assignPositions(receiver))) < 2000) break;
          if (tries > 5) throw new Error('the notifier never woke');
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(heard).toMatch(/^\d+\.[0-9a-f]{64}$/);
        for (const payload of ['999999', `999999.${'0'.repeat(64)}`, heard, '']) {
          const elapsed = await timed(800, () =>
            reader.query('SELECT pg_notify($1, $2)', ['feed_positions', payload]),
          );
          expect(elapsed, `woken by ${JSON.stringify(payload)}`).toBeGreaterThanOrEqual(700);
        }
      });
      await addFeedEvent('WAKE-LAST');
      expect(await timed(3000, () => assignPositions(receiver))).toBeLessThan(2000);
    } finally {
      await notifier.close();
    }
  });

  it('when the reader holds the advisory locks a refund and a payment used, then the refund sender and the payment lock are still taken, and the reader cannot take the row locks', async () => {
    const provider = withProviderTables(receiver);
    await roles.withClient('reader', async (reader) => {
      await reader.query("SELECT pg_advisory_lock(hashtextextended('refund:order-9', 0))");
      await reader.query("SELECT pg_advisory_lock(hashtextextended('payment:TX-9', 0))");
      const held = await tryLockRefund(provider, 'order-9');
      expect(held).toBeDefined();
      // A second sender of the same refund is refused while the first holds it.
      expect(await tryLockRefund(provider, 'order-9')).toBeUndefined();
      await held?.release();
      const paymentLocked = provider
        .transaction()
        .execute(async (tx) => (await lockPayment(tx, 'TX-9')) ?? 'locked');
      const timeout = new Promise((resolve) => setTimeout(() => resolve('blocked'), 3000));
      expect(await Promise.race([paymentLocked, timeout])).toBe('locked');
    });
    expect(
      await outcomesAs('reader', [
        "SELECT name FROM named_locks WHERE name = 'refund:order-9' FOR UPDATE",
        "SELECT name FROM named_locks WHERE name = 'payment:TX-9' FOR UPDATE NOWAIT",
        'SELECT * FROM feed_notification_key',
      ]),
    ).toEqual(
      refused([
        "SELECT name FROM named_locks WHERE name = 'refund:order-9' FOR UPDATE",
        "SELECT name FROM named_locks WHERE name = 'payment:TX-9' FOR UPDATE NOWAIT",
        'SELECT * FROM feed_notification_key',
      ]),
    );
  });
});

describe('the runtime role writes refunds and feed events only as the code does (item 9)', () => {
  it('when the receiver role rewrites what the code never changes or deletes directly, then Postgres refuses each (42501)', async () => {
    const statements = [
      'UPDATE refunds SET amount = amount + 1',
      'UPDATE refunds SET transaction_id = transaction_id',
      'UPDATE refunds SET caller_reference = caller_reference',
      'UPDATE refunds SET unique_reference = unique_reference',
      'DELETE FROM refunds',
      "DELETE FROM refunds WHERE state = 'succeeded'",
      "DELETE FROM feed_events WHERE relay_state = 'pending'",
      'DELETE FROM feed_events',
      'UPDATE feed_events SET business_key = business_key',
      'UPDATE feed_events SET type = type',
      'UPDATE feed_events SET webhook_id = webhook_id',
      'UPDATE feed_relay_control SET id = id',
      'UPDATE payto_unmatched_receipts SET amount = amount',
      'DELETE FROM named_locks',
      'UPDATE feed_notification_key SET key = key',
    ];
    expect(await outcomesAs('receiver', statements)).toEqual(refused(statements));
  });

  it('when the reader calls the delete functions, then it may not', async () => {
    const statements = [
      "SELECT drop_unsent_refund('order-unsent')",
      'SELECT * FROM prune_sent_feed_events(0, now(), 10)',
    ];
    expect(await outcomesAs('reader', statements)).toEqual(refused(statements));
  });

  it('when the receiver drops refunds through drop_unsent_refund, then only a pending refund never attempted goes (rows written before the upgrade)', async () => {
    const tried = await roles.withClient('receiver', async (c) => {
      const answers: Record<string, boolean> = {};
      for (const reference of ['order-tried', 'order-paid', 'order-unsent']) {
        const { rows } = await c.query<{ gone: boolean }>('SELECT drop_unsent_refund($1) AS gone', [
          reference,
        ]);
        answers[reference] = rows[0]?.gone ?? false;
      }
      return answers;
    });
    expect(tried).toEqual({ 'order-tried': false, 'order-paid': false, 'order-unsent': true });
    await dropUnsentRefund(withProviderTables(receiver), 'order-paid'); // the code's own call
    const left = await admin('SELECT caller_reference FROM refunds ORDER BY caller_reference');
    expect(left.rows.map((r) => r.caller_reference)).toEqual(['order-paid', 'order-tried']);
  });

  it('when the receiver prunes feed events, then only sent events older than the cutoff and a day go, as a prefix; a cutoff of now takes nothing sent within the day', async () => {
    const unsafe = await roles.withClient('receiver', (c) =>
      c.query<{ n: number }>(
        "SELECT n FROM prune_sent_feed_events(0, now() + interval '1 year', 1000)",
      ),
    );
    // Position 1 (sent 10 days ago) goes; position 2 (sent an hour ago) stops the prefix.
    expect(unsafe.rows[0]?.n).toBe(1);
    const batch = await feedEventsStep.batch(
      receiver,
      {
        cutoffs: {
          raw: undefined,
          feed: new Date().toISOString(),
          feedAttempts: undefined,
          recovery: undefined,
          recoveryDay: undefined,
        },
        relayInUse: true,
        fannedThrough: '0',
      },
      ['0'],
      1000,
    );
    expect(batch.rows).toBe(0);
    const positions = await admin(
      'SELECT position::int FROM feed_events WHERE position <= 3 ORDER BY 1',
    );
    expect(positions.rows.map((r) => r.position)).toEqual([2, 3]);
  });

  it('when an operator runs refund-resolve under the receiver role, then it is told to use the owner role and the refund stays in doubt; under the owner it is recorded', async () => {
    await admin(
      `INSERT INTO refunds (unique_reference, caller_reference, transaction_id, payment_event,
         amount, state, requested_at, attempts)
       VALUES ('rf-doubt', 'order-doubt', 'TX-DOUBT', 'NPPReceivePayment', 40, 'unknown', now(), 2)`,
    );
    const resolution = {
      callerReference: 'order-doubt',
      outcome: 'not-paid',
      by: 'ops',
      evidence: 'ticket 7',
    } as const;
    const asService = await resolveRefund(
      { db: withProviderTables(receiver), logger: createLogger('silent'), now: () => new Date() },
      resolution,
    );
    expect(asService).toMatchObject({
      resolved: false,
      reason: expect.stringMatching(/owner role/),
    });
    const held = await admin(
      "SELECT state, resolved_by FROM refunds WHERE caller_reference = 'order-doubt'",
    );
    expect(held.rows).toEqual([{ state: 'unknown', resolved_by: null }]);

    const owner = createDatabase({ url: roles.url('owner'), poolMax: 2 });
    try {
      const asOwner = await resolveRefund(
        { db: withProviderTables(owner), logger: createLogger('silent'), now: () => new Date() },
        resolution,
      );
      expect(asOwner).toMatchObject({
        resolved: true,
        refund: { state: 'failed', resolved_by: 'ops' },
      });
    } finally {
      await owner.destroy();
    }
  });
});
