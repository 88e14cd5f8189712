import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PRUNE_STEPS } from '../../../src/cli/prune-steps.ts';
import { assignPositions } from '../../../src/feed/assigner.ts';
import { readFeedPage } from '../../../src/feed/feed-page.ts';
import { showQuarantined } from '../../../src/operations/quarantine/quarantine-operations.ts';
import {
  runPrune,
  type PruneOptions,
  type PruneSummary,
} from '../../../src/operations/retention/prune.ts';
import { quarantineDelivery } from '../../../src/receiver/storage/quarantine-repository.ts';
import {
  storeDeliveries,
  type DeliveryToStore,
} from '../../../src/receiver/storage/store-deliveries.ts';
import { freshWebhookId } from '../../support/deliveries.ts';
import { emptyPaymentRow } from '../../support/sample-bodies.ts';
import { createDatabase, type Db } from '../../../src/lib/database/database.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';
import { exportQuarantine } from '../../../tools/capture/export-quarantine.ts';

/**
 * What the prune removes and, above all, what it never removes (docs/retention.md): on deliveries
 * stored by the receiver's own statement (so with their typed rows and feed events), aged by
 * moving their times back, then pruned with the default retentions (raw 90 days, sent feed
 * events 30, recovery 90).
 */

let database: TestDatabase;
let feedDb: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  feedDb = createDatabase({ url: database.url, poolMax: 2 });
});
afterAll(async () => {
  await feedDb?.destroy();
  await database?.drop();
});

const RETENTION = {
  rawDays: 90,
  feedDays: 30,
  feedAttemptsDays: 30,
  recoveryDays: 90,
  batchSize: 1000,
  batchPauseMs: 0,
  runMaxMs: 60_000,
};

function prune(options: Partial<PruneOptions> = {}): Promise<PruneSummary> {
  return runPrune({
    db: database.db,
    steps: PRUNE_STEPS,
    retention: RETENTION,
    relayConfigured: true,
    ...options,
  });
}

/** A payment (with this TransactionId and amount) or an unmodelled delivery. */
function item(options: { transactionId?: string; amount?: string } = {}): DeliveryToStore {
  const webhookId = freshWebhookId();
  const body = JSON.stringify({
    TransactionId: options.transactionId ?? null,
    RemitterName: 'JANE CITIZEN',
    SourceAccountNumber: '12345678',
    n: webhookId,
  });
  const rawBody = Buffer.from(body);
  return {
    delivery: {
      webhookId,
      eventName: options.transactionId ? 'NPPReceivePayment' : 'NppReturn',
      receivedAt: new Date(),
      bodySha256: createHash('sha256').update(rawBody).digest('hex'),
      rawBody,
      contentType: 'application/json',
      headers: { webhookid: webhookId, 'verification-signature': 'c2lnbmF0dXJl' },
      requestId: 'req',
      remoteAddress: '203.0.113.9',
      signingKeyFingerprint: 'fp',
      warnings: [],
    },
    typed: options.transactionId
      ? {
          kind: 'npp-payment',
          rows: [
            {
              ...emptyPaymentRow(),
              transactionId: options.transactionId,
              amount: options.amount ?? '10.5',
              remitterName: 'JANE CITIZEN',
              sourceAccountNumber: '12345678',
            },
          ],
        }
      : { kind: 'unmodelled', rows: [] },
  };
}

/**
 * Stores one delivery (its events get the next positions) and answers its Webhookid. The jsonb
 * copy of the body is written as releases before 2026-11-24T09 wrote it, so the prune is shown
 * clearing it from the rows those releases left.
 */
async function store(delivery: DeliveryToStore): Promise<string> {
  await storeDeliveries(database.db, [delivery]);
  await database.query(
    `UPDATE webhook_deliveries SET payload = convert_from(raw_body, 'UTF8')::jsonb
     WHERE webhook_id = $1`,
    [delivery.delivery.webhookId],
  );
  await assignPositions(database.db);
  return delivery.delivery.webhookId;
}

async function age(webhookId: string, days: number): Promise<void> {
  await database.query(
    `UPDATE webhook_deliveries SET received_at = now() - $2 * interval '1 day' WHERE webhook_id = $1`,
    [webhookId, days],
  );
}

/**
 * Sets an endpoint's (default: configured's) delivery state on every numbered event of a
 * delivery (sent `sentDaysAgo` days ago, the events created then), and moves its fan-out cursor
 * past them unless `fannedOut` is false.
 */
async function relay(
  webhookId: string,
  state: 'sent' | 'pending' | 'dead',
  sentDaysAgo = 40,
  { endpoint = 'configured', fannedOut = true }: { endpoint?: string; fannedOut?: boolean } = {},
) {
  await database.query(
    `UPDATE feed_events SET created_at = least(created_at, now() - $2 * interval '1 day')
     WHERE webhook_id = $1`,
    [webhookId, sentDaysAgo],
  );
  await database.query(
    `INSERT INTO feed_endpoint_events (endpoint_id, position, event_id, type, event_name,
       business_key, state, attempts, sent_at, dead_at)
     SELECT ep.id, e.position, e.id, e.type, e.event_name, e.business_key, $2,
       CASE WHEN $2 = 'pending' THEN 0 ELSE 1 END,
       CASE WHEN $2 = 'sent' THEN now() - $3 * interval '1 day' END,
       CASE WHEN $2 = 'dead' THEN now() - $3 * interval '1 day' END
     FROM feed_events e, feed_endpoints ep
     WHERE e.webhook_id = $1 AND e.position IS NOT NULL AND ep.name = $4
     ON CONFLICT (endpoint_id, position) DO UPDATE SET state = excluded.state,
       attempts = excluded.attempts, sent_at = excluded.sent_at, dead_at = excluded.dead_at`,
    [webhookId, state, sentDaysAgo, endpoint],
  );
  if (fannedOut) await fanOut(endpoint);
}

/** Moves an endpoint's fan-out cursor to the last numbered event. */
async function fanOut(endpoint = 'configured') {
  await database.query(
    `UPDATE feed_endpoints SET fanned_through = greatest(fanned_through,
       (SELECT coalesce(max(position), 0) FROM feed_events)) WHERE name = $1`,
    [endpoint],
  );
}

interface DeliveryRow {
  webhook_id: string;
  raw_body: Buffer | null;
  headers: unknown;
  payload: unknown;
  pruned_at: Date | null;
}

async function deliveryRow(webhookId: string): Promise<DeliveryRow> {
  const [row] = await database.query<DeliveryRow>(
    'SELECT webhook_id, raw_body, headers, payload, pruned_at FROM webhook_deliveries WHERE webhook_id = $1',
    [webhookId],
  );
  return row!;
}

async function positions(): Promise<string[]> {
  const rows = await database.query<{ p: string }>(
    'SELECT position::text AS p FROM feed_events WHERE position IS NOT NULL ORDER BY position',
  );
  return rows.map((r) => r.p);
}

/** Everything about deliveries that must never change, and every row of the kept tables. */
async function keptSnapshot() {
  return database.query(`
    SELECT 'delivery' AS kind, to_jsonb(d) - 'raw_body' - 'headers' - 'payload' - 'pruned_at' AS row
      FROM webhook_deliveries d
    UNION ALL SELECT 'npp', to_jsonb(p) FROM npp_payments p
    UNION ALL SELECT 'conflict', to_jsonb(c) FROM conflicts c
    UNION ALL SELECT 'refund', to_jsonb(r) FROM refunds r
    ORDER BY 1, 2`);
}

async function clear(): Promise<void> {
  await database.query(
    `TRUNCATE webhook_deliveries, npp_payments, payto_payments, credit_rejections, direct_credits,
       direct_credit_batches, conflicts, feed_events, quarantined_deliveries, recovery_attempts,
       recovery_runs, recovery_row_problems, recovery_progress, leases, refunds,
       feed_endpoint_events, feed_attempts CASCADE`,
  );
  await database.query(`DELETE FROM feed_endpoints WHERE name <> 'configured'`);
  await database.query(
    'UPDATE feed_endpoints SET fanned_through = 0, paused = false, enabled = true',
  );
}

describe('with a relay handing events on', () => {
  const ids: Record<string, string> = {};
  let before: unknown[];
  let summary: PruneSummary;

  beforeAll(async () => {
    await clear();
    // The head of the feed: three old deliveries whose events were sent 40 days ago.
    for (const name of ['sent1', 'sent2', 'sent3']) {
      ids[name] = await store(item({ transactionId: `TX-${name}` }));
      await age(ids[name], 100);
      await relay(ids[name], 'sent');
    }
    // Not yet handed on: pending (the consumer is down, or blocked behind a dead letter), dead.
    ids.pending = await store(item({ transactionId: 'TX-pending' }));
    await age(ids.pending, 100);
    await relay(ids.pending, 'pending');
    ids.dead = await store(item());
    await age(ids.dead, 100);
    await relay(ids.dead, 'dead');
    // Sent and old, but after the pending one in the feed.
    ids.later = await store(item({ transactionId: 'TX-later' }));
    await age(ids.later, 100);
    await relay(ids.later, 'sent');
    // Received yesterday, its event already sent.
    ids.recent = await store(item({ transactionId: 'TX-recent' }));
    await relay(ids.recent, 'sent', 0);
    // An open conflict: the same TransactionId again with another amount.
    ids.first = await store(item({ transactionId: 'TX-conflict' }));
    ids.second = await store(item({ transactionId: 'TX-conflict', amount: '99' }));
    for (const id of [ids.first, ids.second]) {
      await age(id, 100);
      await relay(id, 'sent');
    }
    // An event not yet numbered (the assigner has not run since its commit).
    ids.unassigned = await store(item());
    await age(ids.unassigned, 100);
    await relay(ids.unassigned, 'sent');
    await database.query(
      `INSERT INTO feed_events (type, event_name, business_key, webhook_id)
       VALUES ('event.unmodelled', 'NppReturn', $1::text, $1::bigint)`,
      [ids.unassigned],
    );
    await database.query(
      `INSERT INTO refunds (unique_reference, caller_reference, transaction_id, payment_event,
         amount, state, requested_at)
       VALUES ('rf1', 'order-1', 'TX-sent1', 'NPPReceivePayment', 1, 'succeeded',
         now() - interval '200 days')`,
    );
    before = await keptSnapshot();
    summary = await prune();
  });

  it('when pruned, then old deliveries whose every event was sent lose raw body, headers and payload, and keep everything else', async () => {
    for (const name of ['sent1', 'sent2', 'sent3', 'later']) {
      const row = await deliveryRow(ids[name]!);
      expect(row, name).toMatchObject({ raw_body: null, headers: null, payload: null });
      expect(row.pruned_at, name).toBeInstanceOf(Date);
    }
    expect(summary.steps.find((s) => s.table === 'webhook_deliveries')).toMatchObject({
      rows: 4,
      status: 'done',
    });
    expect(summary.complete).toBe(true);
  });

  it('when pruned, then a delivery with a pending, dead or unnumbered event, a recent one and both sides of an open conflict keep their raw request', async () => {
    for (const name of ['pending', 'dead', 'recent', 'first', 'second', 'unassigned']) {
      const row = await deliveryRow(ids[name]!);
      expect(row.raw_body, name).toBeInstanceOf(Buffer);
      expect(row.headers, name).toMatchObject({ webhookid: ids[name] });
      expect(row.payload, name).toMatchObject({ n: ids[name] });
      expect(row.pruned_at, name).toBeNull();
    }
  });

  it('when pruned, then typed rows, conflicts, refunds and every kept column of every delivery are exactly as before', async () => {
    expect(await keptSnapshot()).toEqual(before);
    expect(await database.count('npp_payments')).toBe(7);
    expect(await database.count('conflicts')).toBe(1);
  });

  it('when pruned, then only the sent head of the feed goes: no pending or dead event, nothing after the first one that must stay, no gap', async () => {
    const states = await database.query<{ webhook_id: string; relay_state: string }>(
      `SELECT e.webhook_id::text, coalesce(r.state, 'no row') AS relay_state
       FROM feed_events e LEFT JOIN feed_endpoint_events r ON r.event_id = e.id ORDER BY e.id`,
    );
    expect(states.map((s) => s.webhook_id)).not.toContain(ids.sent1);
    expect(states.map((s) => s.webhook_id)).not.toContain(ids.sent3);
    for (const name of ['pending', 'dead', 'later', 'recent', 'first', 'second', 'unassigned']) {
      expect(
        states.map((s) => s.webhook_id),
        name,
      ).toContain(ids[name]);
    }
    expect(states.filter((s) => s.relay_state !== 'sent')).toHaveLength(3); // pending, dead, unnumbered
    const kept = (await positions()).map(Number);
    expect(kept[0]).toBe(4); // 1-3 went
    expect(kept).toEqual(kept.map((_, i) => 4 + i)); // gapless from there
  });

  it('when a pruned delivery is read through the feed, then its event renders with a null payload (no crash) and its fields intact', async () => {
    const page = await readFeedPage(feedDb, { after: '0', limit: 100, maxBytes: 1 << 22 });
    const later = page.events
      .map(
        (e) =>
          JSON.parse(e.body) as {
            data: { webhookId: string; payload: unknown; fields: { transaction_id: string } };
          },
      )
      .find((e) => e.data.webhookId === ids.later);
    expect(later?.data.payload).toBeNull();
    expect(later?.data.fields.transaction_id).toBe('TX-later');
  });

  it('when the same delivery is sent again after its raw body went, then it is still a duplicate (by Webhookid and by body digest)', async () => {
    const original = item({ transactionId: 'TX-sent1' });
    const [row] = await database.query<{ body_sha256: string }>(
      'SELECT body_sha256 FROM webhook_deliveries WHERE webhook_id = $1',
      [ids.sent1],
    );
    original.delivery.webhookId = ids.sent1!;
    const [again] = await storeDeliveries(database.db, [original]);
    expect(again?.inserted).toBe(false);
    const sameBody = item();
    sameBody.delivery.eventName = 'NPPReceivePayment';
    sameBody.delivery.bodySha256 = row!.body_sha256;
    const [byBody] = await storeDeliveries(database.db, [sameBody]);
    expect(byBody?.inserted).toBe(false);
  });

  it('when the pending event is sent and the conflict resolved, then the next run prunes those deliveries and the feed up to the dead letter', async () => {
    await relay(ids.pending!, 'sent');
    await database.query(`UPDATE conflicts SET resolved_at = now(), resolution = 'refunded'`);
    const next = await prune();
    for (const name of ['pending', 'first', 'second']) {
      expect((await deliveryRow(ids[name]!)).pruned_at, name).toBeInstanceOf(Date);
    }
    expect((await deliveryRow(ids.dead!)).raw_body).toBeInstanceOf(Buffer);
    const left = await database.query<{ webhook_id: string }>(
      'SELECT webhook_id::text FROM feed_events WHERE position IS NOT NULL ORDER BY position LIMIT 1',
    );
    expect(left[0]?.webhook_id).toBe(ids.dead); // the dead letter heads the feed now
    expect(next.steps.find((s) => s.table === 'feed_events')?.rows).toBe(1);
  });

  it('when run again with nothing new, then it changes nothing', async () => {
    const snapshot = await database.query(
      'SELECT to_jsonb(d) AS row FROM webhook_deliveries d ORDER BY webhook_id',
    );
    const events = await database.count('feed_events');
    const again = await prune();
    expect(again.steps.reduce((n, s) => n + s.rows, 0)).toBe(0);
    expect(
      await database.query(
        'SELECT to_jsonb(d) AS row FROM webhook_deliveries d ORDER BY webhook_id',
      ),
    ).toEqual(snapshot);
    expect(await database.count('feed_events')).toBe(events);
  });
});

describe('feed events sent recently at the head of the feed', () => {
  it('when the first event was sent within the retention, then no later event goes either (the feed stays a prefix)', async () => {
    await clear();
    const first = await store(item({ transactionId: 'TX-head' }));
    await relay(first, 'sent', 1);
    const second = await store(item({ transactionId: 'TX-next' }));
    await relay(second, 'sent', 60);
    const summary = await prune();
    expect(await positions()).toEqual(['1', '2']);
    expect(summary.steps.find((s) => s.table === 'feed_events')?.rows).toBe(0);
    const dry = await prune({ dryRun: true });
    expect(dry.steps.find((s) => s.table === 'feed_events')?.heldAt).toEqual({
      position: '1',
      state: 'sent within the retention at configured',
    });
  });
});

describe('feed events with several endpoints', () => {
  const heldAt = async () =>
    (await prune({ dryRun: true })).steps.find((s) => s.table === 'feed_events')?.heldAt;

  it('when one endpoint has sent an event and another still has it pending, then it and every later event stay; once sent there too, it goes with its delivery rows', async () => {
    await clear();
    await database.query(
      `INSERT INTO feed_endpoints (name, kind, target, types) VALUES ('second', 'http', 'https://c.test', '{*}')`,
    );
    const first = await store(item({ transactionId: 'TX-both-1' }));
    const next = await store(item({ transactionId: 'TX-both-2' }));
    for (const id of [first, next]) await relay(id, 'sent');
    await relay(first, 'pending', 40, { endpoint: 'second' });
    await relay(next, 'sent', 40, { endpoint: 'second' });

    const held = await prune();
    expect(held.steps.find((s) => s.table === 'feed_events')?.rows).toBe(0);
    expect(await positions()).toEqual(['1', '2']);
    expect(await database.count('feed_endpoint_events')).toBe(4);
    expect(await heldAt()).toEqual({ position: '1', state: 'pending at second' });

    await relay(first, 'sent', 40, { endpoint: 'second' });
    const gone = await prune();
    expect(gone.steps.find((s) => s.table === 'feed_events')?.rows).toBe(2);
    expect(await positions()).toEqual([]);
    expect(await database.count('feed_endpoint_events')).toBe(0);
  });

  it('when an endpoint is disabled below an event, then its cursor holds the event back (status says so); removing the endpoint releases it', async () => {
    await clear();
    await database.query(
      `INSERT INTO feed_endpoints (name, kind, target, types, enabled)
       VALUES ('stopped', 'http', 'https://c.test', '{payment.*}', false)`,
    );
    const id = await store(item({ transactionId: 'TX-disabled' }));
    await relay(id, 'sent');
    await prune();
    expect(await positions()).toEqual(['1']);
    expect(await heldAt()).toEqual({ position: '1', state: 'not yet fanned out to stopped' });

    await database.query(`DELETE FROM feed_endpoints WHERE name = 'stopped'`);
    await prune();
    expect(await positions()).toEqual([]);
  });

  it('when an event no endpoint selects is past every cursor, then it goes once old, not while it is recent', async () => {
    await clear();
    const old = await store(item({ transactionId: 'TX-unselected-old' }));
    const recent = await store(item({ transactionId: 'TX-unselected-recent' }));
    await database.query(
      `UPDATE feed_events SET created_at = now() - interval '40 days' WHERE webhook_id = $1`,
      [old],
    );
    await fanOut();
    await prune();
    expect(await positions()).toEqual(['2']);
    expect(await heldAt()).toEqual({ position: '2', state: 'created within the retention' });
    expect(recent).toBeDefined();
  });
});

describe('the feed attempt log', () => {
  it('when attempts are older than RETENTION_FEED_ATTEMPTS_DAYS, then they go and later ones stay; 0 keeps them all', async () => {
    await clear();
    await database.query(
      `INSERT INTO feed_attempts (endpoint_id, event_id, position, attempt, started_at,
         duration_ms, outcome, status, instance)
       SELECT ep.id, g, g, 1, now() - (g * 10) * interval '1 day', 12, 'sent', 204, 'i1'
       FROM feed_endpoints ep, generate_series(1, 5) AS g WHERE ep.name = 'configured'`,
    );
    const kept = await prune({ retention: { ...RETENTION, feedAttemptsDays: 0 } });
    expect(kept.steps.find((s) => s.table === 'feed_attempts')?.status).toBe('off');
    expect(await database.count('feed_attempts')).toBe(5);

    const dry = await prune({ dryRun: true });
    expect(dry.steps.find((s) => s.table === 'feed_attempts')?.rows).toBe(3);
    const summary = await prune({ retention: { ...RETENTION, batchSize: 2 } });
    expect(summary.steps.find((s) => s.table === 'feed_attempts')).toMatchObject({
      rows: 3,
      status: 'done',
    });
    const left = await database.query<{ days: string }>(
      `SELECT round(extract(epoch FROM now() - started_at) / 86400)::text AS days
       FROM feed_attempts ORDER BY started_at DESC`,
    );
    expect(left.map((r) => r.days)).toEqual(['10', '20']);
  });
});

describe('without a relay (a pull consumer: events stay pending for ever)', () => {
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    await clear();
    ids.pulled = await store(item({ transactionId: 'TX-pull' }));
    await age(ids.pulled, 100);
    ids.dead = await store(item({ transactionId: 'TX-old-dead' }));
    await age(ids.dead, 100);
    await relay(ids.dead, 'dead', 40, { fannedOut: false });
    ids.recent = await store(item({ transactionId: 'TX-pull-recent' }));
  });

  it('when a relay was at work and FEED_HTTP_URL is only missing here, then pending events still keep their deliveries', async () => {
    // An endpoint an operator added, its relay not yet past the first event: a relay at work.
    await database.query(
      `INSERT INTO feed_endpoints (name, kind, target, types) VALUES ('elsewhere', 'http', 'https://c.test', '{*}')`,
    );
    const summary = await prune({ relayConfigured: false });
    expect(summary.relay).toBe('detected');
    expect((await deliveryRow(ids.pulled!)).raw_body).toBeInstanceOf(Buffer);
    await database.query(`DELETE FROM feed_endpoints WHERE name = 'elsewhere'`);
  });

  it('when pruned, then no pending event is ever deleted, old deliveries with only pending events lose their raw request, and a dead letter keeps its delivery', async () => {
    const summary = await prune({ relayConfigured: false });
    expect(summary.relay).toBe('none');
    expect((await deliveryRow(ids.pulled!)).raw_body).toBeNull();
    expect((await deliveryRow(ids.dead!)).raw_body).toBeInstanceOf(Buffer);
    expect((await deliveryRow(ids.recent!)).raw_body).toBeInstanceOf(Buffer);
    expect(await positions()).toEqual(['1', '2', '3']);
    expect(await database.count('npp_payments')).toBe(3);
  });

  it('when an endpoint is paused, or its cursor has moved, then it counts as a relay in use', async () => {
    await database.query('UPDATE feed_endpoints SET paused = true');
    expect((await prune({ relayConfigured: false, dryRun: true })).relay).toBe('detected');
    await database.query('UPDATE feed_endpoints SET paused = false');
    // And a fan-out cursor that moved: a relay considered events for an endpoint.
    await database.query('UPDATE feed_endpoints SET fanned_through = 1');
    expect((await prune({ relayConfigured: false, dryRun: true })).relay).toBe('detected');
  });
});

describe('quarantine', () => {
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    await clear();
    // The feed may carry quarantine events (a quarantine_id column): present either way here.
    await database.query('ALTER TABLE feed_events ADD COLUMN IF NOT EXISTS quarantine_id bigint');
    const names = ['open', 'handledLongAgo', 'handledLately', 'pendingById', 'pendingByRow'];
    for (const name of names) {
      const body = Buffer.from(`{"RemitterName":"JANE CITIZEN","n":"${name}"}`);
      const header = freshWebhookId();
      const row = await quarantineDelivery(database.db, {
        eventName: 'NPPReceivePayment',
        webhookIdHeader: header,
        webhookId: name === 'pendingById' ? header : null,
        receivedAt: new Date(Date.now() - 200 * 86_400_000),
        bodySha256: createHash('sha256').update(body).digest('hex'),
        rawBody: body,
        contentType: 'application/json',
        headers: { 'x-name': name },
        reasons: [{ path: 'Amount', message: 'missing' }],
        requestId: null,
        remoteAddress: null,
        signingKeyFingerprint: null,
      });
      ids[name] = row.id;
    }
    // Whatever events the feed has for them were sent long ago...
    await assignPositions(database.db);
    for (const { webhook_id } of await database.query<{ webhook_id: string }>(
      'SELECT DISTINCT webhook_id::text FROM feed_events',
    )) {
      await relay(webhook_id, 'sent');
    }
    for (const name of ['handledLongAgo', 'pendingById', 'pendingByRow']) {
      await database.query(
        `UPDATE quarantined_deliveries SET handled_at = now() - interval '100 days',
           handling = 'marked', handled_note = 'paid by hand' WHERE id = $1`,
        [ids[name]],
      );
    }
    // ... but these two have one not handed on yet: found by Webhookid, and by the row.
    const [byId] = await database.query<{ webhook_id: string }>(
      'SELECT webhook_id::text FROM quarantined_deliveries WHERE id = $1',
      [ids.pendingById],
    );
    await database.query(
      `INSERT INTO feed_events (position, type, event_name, business_key, webhook_id)
       VALUES (1000, 'quarantine.resolved', 'NPPReceivePayment', $1::text, $2::bigint),
              (1001, 'quarantine.resolved', 'NPPReceivePayment', $3::text, NULL)`,
      [ids.pendingById, byId!.webhook_id, ids.pendingByRow],
    );
    await database.query(`UPDATE feed_events SET quarantine_id = $1 WHERE position = 1001`, [
      ids.pendingByRow,
    ]);
    await database.query(
      `UPDATE quarantined_deliveries SET handled_at = now() - interval '10 days', handling = 'marked',
         handled_note = 'paid by hand' WHERE id = $1`,
      [ids.handledLately],
    );
  });

  it('when pruned, then an open row is untouched however old, a row handled within the retention is kept, and one handled before it loses body and headers only', async () => {
    const before = await database.rows<Record<string, unknown>>('quarantined_deliveries', 'id');
    await prune();
    const after = await database.rows<Record<string, unknown>>('quarantined_deliveries', 'id');
    const byId = (rows: Record<string, unknown>[], id: string) => rows.find((r) => r.id === id);
    expect(byId(after, ids.open!)).toEqual(byId(before, ids.open!));
    expect(byId(after, ids.handledLately!)).toEqual(byId(before, ids.handledLately!));
    const pruned = byId(after, ids.handledLongAgo!)!;
    expect(pruned).toMatchObject({ headers: {}, handling: 'marked', handled_note: 'paid by hand' });
    expect((pruned.raw_body as Buffer).length).toBe(0);
    expect(pruned.pruned_at).toBeInstanceOf(Date);
    const others = (row: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(row).filter(([k]) => !['raw_body', 'headers', 'pruned_at'].includes(k)),
      );
    expect(others(pruned)).toEqual(others(byId(before, ids.handledLongAgo!)!));
  });

  it('when a handled row has a feed event not yet sent (by its Webhookid, or pointing at the row), then it keeps its body until the event is sent', async () => {
    const body = async (name: string) =>
      (
        await database.query<{ n: number }>(
          'SELECT octet_length(raw_body) AS n FROM quarantined_deliveries WHERE id = $1',
          [ids[name]],
        )
      )[0]!.n;
    expect(await body('pendingById')).toBeGreaterThan(0);
    expect(await body('pendingByRow')).toBeGreaterThan(0);
    // Fanned out to the endpoint, then sent.
    await fanOut();
    await database.query(
      `INSERT INTO feed_endpoint_events (endpoint_id, position, event_id, type, event_name,
         business_key, state, sent_at)
       SELECT ep.id, e.position, e.id, e.type, e.event_name, e.business_key, 'pending', NULL
       FROM feed_events e, feed_endpoints ep WHERE e.position >= 1000 AND ep.name = 'configured'`,
    );
    await prune();
    expect(await body('pendingById')).toBeGreaterThan(0);
    expect(await body('pendingByRow')).toBeGreaterThan(0);
    await database.query(
      `UPDATE feed_endpoint_events SET state = 'sent', sent_at = now() WHERE position >= 1000`,
    );
    await prune();
    expect(await body('pendingById')).toBe(0);
    expect(await body('pendingByRow')).toBe(0);
  });

  it('when a pruned row is shown or exported, then the quarantine tools still work: an empty body is shown, the export skips it', async () => {
    const shown = await showQuarantined(database.db, ids.handledLongAgo!);
    expect(shown).toMatchObject({ body: '', bodyBytes: 0, headers: {}, handling: 'marked' });
    const outDir = mkdtempSync(path.join(tmpdir(), 'retention-export-'));
    try {
      const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const result = await exportQuarantine(database.db, { outDir, publicKey });
      expect(result.written).toEqual([]);
      expect(result.skipped.map((s) => s.id)).toContain(ids.handledLongAgo);
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  });
});

describe('recovery records', () => {
  beforeAll(async () => {
    await clear();
    const attempt = (webhookId: number, daysAgo: number, reportDaysAgo = daysAgo) =>
      database.query(
        `INSERT INTO recovery_attempts (webhook_id, report_day, reason, attempted_at, outcome)
         VALUES ($1, (now() - $3 * interval '1 day')::date, 'missing',
           now() - $2 * interval '1 day', 'failed')`,
        [webhookId, daysAgo, reportDaysAgo],
      );
    // 1: three attempts long ago: gone. 2: two long ago and one last week: all three stay.
    for (const days of [100, 99, 98]) await attempt(1, days);
    for (const days of [100, 99]) await attempt(2, days);
    await attempt(2, 7);
    // 3: attempted long ago for a report day inside the retention (an operator's --date): stays.
    await attempt(3, 100, 10);
    const runs = await database.query<{ id: string }>(
      `INSERT INTO recovery_runs (started_at, finished_at, days, ok, summary) VALUES
         (now() - interval '100 days', now() - interval '100 days', '{}', true, '{}'),
         (now() - interval '100 days', NULL, '{}', false, '{}'),
         (now() - interval '1 day', now() - interval '1 day', '{}', true, '{}')
       RETURNING id::text`,
    );
    await database.query(
      `INSERT INTO recovery_row_problems (report_day, report_kind, row_number, reason, raw,
         fingerprint, first_run_id, last_run_id, first_seen_at, last_seen_at) VALUES
         ('2026-01-01', 'delivery', 1, 'bad', 'JANE CITIZEN,123', 'f1', $1, $1,
           now() - interval '100 days', now() - interval '100 days'),
         ('2026-01-02', 'delivery', 2, 'bad', 'row', 'f2', $1, $2,
           now() - interval '100 days', now() - interval '1 day')`,
      [runs[0]!.id, runs[2]!.id],
    );
    await database.query(
      `INSERT INTO recovery_progress (report_day, report_kind, next_skip, pass_started_at, updated_at)
       VALUES ((now() - interval '100 days')::date, 'delivery', 1000, now(), now()),
              (now()::date, 'delivery', 1000, now(), now())`,
    );
  });

  it('when pruned, then old attempts go a notification at a time, never while one of its attempts or report days is inside the retention', async () => {
    const summary = await prune();
    const left = await database.query<{ webhook_id: string; n: string }>(
      'SELECT webhook_id::text, count(*)::text AS n FROM recovery_attempts GROUP BY 1 ORDER BY 1',
    );
    expect(left).toEqual([
      { webhook_id: '2', n: '3' },
      { webhook_id: '3', n: '1' },
    ]);
    expect(summary.steps.find((s) => s.table === 'recovery_attempts')?.rows).toBe(3);
  });

  it('when pruned, then old runs (finished or not), problems not seen lately and old progress go; recent ones stay', async () => {
    const runs = await database.query<{ age: string }>(
      `SELECT (now() - started_at < interval '2 days')::text AS age FROM recovery_runs`,
    );
    expect(runs).toEqual([{ age: 'true' }]);
    const problems = await database.query(
      'SELECT fingerprint, first_run_id FROM recovery_row_problems',
    );
    expect(problems).toEqual([{ fingerprint: 'f2', first_run_id: null }]);
    expect(await database.count('recovery_progress')).toBe(1);
  });
});

describe('retentions set to 0', () => {
  beforeEach(clear);

  it('when every retention is 0, then nothing is touched', async () => {
    const id = await store(item({ transactionId: 'TX-kept' }));
    await age(id, 1000);
    await relay(id, 'sent', 1000);
    await database.query(
      `INSERT INTO recovery_attempts (webhook_id, report_day, reason, attempted_at, outcome)
       VALUES (5, '2020-01-01', 'missing', '2020-01-01', 'failed')`,
    );
    const summary = await prune({
      retention: { ...RETENTION, rawDays: 0, feedDays: 0, feedAttemptsDays: 0, recoveryDays: 0 },
    });
    expect(summary.steps.every((s) => s.status === 'off')).toBe(true);
    expect((await deliveryRow(id)).raw_body).toBeInstanceOf(Buffer);
    expect(await database.count('feed_events')).toBe(1);
    expect(await database.count('recovery_attempts')).toBe(1);
  });
});
