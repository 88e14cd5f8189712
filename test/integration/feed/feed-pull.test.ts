import { createHash } from 'node:crypto';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignPositions, startAssigner } from '../../../src/feed/assigner.ts';
import { createFeedNotifier, type FeedNotifier } from '../../../src/feed/feed-notifier.ts';
import { feedRouter } from '../../../src/feed/feed-route.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import type { Db } from '../../../src/lib/database/database.ts';
import {
  storeDeliveries,
  type DeliveryToStore,
} from '../../../src/receiver/storage/store-deliveries.ts';
import { freshWebhookId } from '../../support/deliveries.ts';
import { feedDatabase } from '../../support/feed-consumer.ts';
import { useTestbed } from '../../support/testbed.ts';

const bed = useTestbed();
const TOKEN = 'feed-token-for-tests-0123456789';
let feed: ReturnType<typeof feedDatabase>;
let notifier: FeedNotifier;
let app: express.Express;

beforeAll(() => {
  feed = feedDatabase(bed.database.url);
  const logger = createLogger('silent');
  notifier = createFeedNotifier({ url: bed.database.url, logger });
  app = express().use(
    feedRouter({ db: feed.db, token: TOKEN, pageMaxBytes: 1 << 20, notifier, logger }),
  );
});
afterAll(async () => {
  await notifier.close();
  await feed.db.destroy();
});

/** An unmodelled delivery, stored by the receiver's own statement (so with its event). */
function delivery(webhookId = freshWebhookId()): DeliveryToStore {
  const rawBody = Buffer.from(`{"Note":"${webhookId}"}`);
  return {
    delivery: {
      webhookId,
      eventName: 'NppReturn',
      receivedAt: new Date(),
      bodySha256: createHash('sha256').update(rawBody).digest('hex'),
      rawBody,
      contentType: 'application/json',
      headers: {},
      requestId: null,
      remoteAddress: null,
      signingKeyFingerprint: null,
    },
    typed: { kind: 'unmodelled', rows: [] },
  };
}

/** Stores `item` in a transaction that commits only when the returned `commit` is called. */
async function openTransaction(db: Db, item: DeliveryToStore) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let written!: () => void;
  const stored = new Promise<void>((resolve) => (written = resolve));
  const done = db.transaction().execute(async (trx) => {
    await storeDeliveries(trx, [item]);
    written();
    await gate;
  });
  await stored;
  return () => {
    release();
    return done;
  };
}

const pull = (after: string, query = '') =>
  request(app).get(`/feed?after=${after}${query}`).set('Authorization', `Bearer ${TOKEN}`);

const webhookIdsOf = (res: request.Response) =>
  (res.body.events as { data: { webhookId: string } }[]).map((e) => e.data.webhookId);

describe('pull with a commit-safe cursor', () => {
  it('when a delivery that began first commits last, then the feed hands it on after the others and a position cursor never skips it (an id cursor would)', async () => {
    const early = delivery();
    const late = delivery();
    const commitEarly = await openTransaction(bed.database.db, early);
    await storeDeliveries(bed.database.db, [late]);
    await assignPositions(feed.db);

    const first = await pull('0').expect(200);
    expect(webhookIdsOf(first)).toEqual([late.delivery.webhookId]);
    expect(first.body.next).toBe('1');
    // What a poller remembering "the last id I saw" would have kept.
    const [seen] = await bed.database.query<{ id: string }>(
      'SELECT max(id)::text AS id FROM feed_events',
    );

    await commitEarly();
    await assignPositions(feed.db);
    const second = await pull(first.body.next as string).expect(200);
    expect(webhookIdsOf(second)).toEqual([early.delivery.webhookId]);
    expect(second.body.events[0].position).toBe('2');
    // The early delivery drew the lower id, so `id > last seen` would never return it.
    const byId = await bed.database.query('SELECT id FROM feed_events WHERE id > $1', [seen?.id]);
    expect(byId).toEqual([]);
  });

  it('when 60 deliveries commit in random overlapping transactions while a consumer long-polls over HTTP, then it sees every event exactly once, in position order', async () => {
    const assigner = startAssigner({ db: feed.db, intervalMs: 20, logger: createLogger('silent') });
    const items = Array.from({ length: 60 }, () => delivery());
    const seen: string[] = [];
    const positions: number[] = [];
    let stop = false;
    const consumer = (async () => {
      let after = '0';
      while (!stop || seen.length < items.length) {
        const res = await pull(after, '&limit=7&wait=1').expect(200);
        for (const event of res.body.events as {
          position: string;
          data: { webhookId: string };
        }[]) {
          seen.push(event.data.webhookId);
          positions.push(Number(event.position));
        }
        after = res.body.next as string;
        if (stop && res.body.events.length === 0) break;
      }
    })();
    try {
      // Overlapping transactions: each holds its commit for a random time, so commit order is
      // shuffled against the order in which ids were drawn.
      await Promise.all(
        items.map(async (item, index) => {
          await new Promise((resolve) => setTimeout(resolve, (index % 10) * 15));
          const commit = await openTransaction(bed.database.db, item);
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 200));
          await commit();
        }),
      );
    } finally {
      await assigner.runNow();
      stop = true;
      await consumer;
      await assigner.stop();
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual(items.map((i) => i.delivery.webhookId).sort());
    expect(positions).toEqual(positions.map((_, i) => i + 1));
    // The shuffle did happen: commit (position) order differs from id order.
    const rows = await bed.database.query<{ id: string; position: string }>(
      'SELECT id::text, position::text FROM feed_events ORDER BY position',
    );
    const ids = rows.map((r) => Number(r.id));
    expect(ids).not.toEqual([...ids].sort((a, b) => a - b));
  }, 60_000);

  it('when a consumer long-polls an empty feed and an event commits, then the answer carries it before the wait runs out', async () => {
    const [top] = await bed.database.query<{ p: string }>(
      'SELECT coalesce(max(position), 0)::text AS p FROM feed_events',
    );
    const started = Date.now();
    const waiting = pull(top?.p ?? '0', '&wait=20');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const item = delivery();
    await storeDeliveries(bed.database.db, [item]);
    await assignPositions(feed.db);
    const res = await waiting.expect(200);
    expect(webhookIdsOf(res)).toEqual([item.delivery.webhookId]);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('when pages are bounded in bytes, then each page stops early but holds at least one event', async () => {
    await storeDeliveries(bed.database.db, [delivery(), delivery()]);
    await assignPositions(feed.db);
    const small = express().use(
      feedRouter({
        db: feed.db,
        token: TOKEN,
        pageMaxBytes: 1,
        notifier,
        logger: createLogger('silent'),
      }),
    );
    const res = await request(small)
      .get('/feed?after=0&limit=100')
      .set('Authorization', `Bearer ${TOKEN}`)
      .expect(200);
    expect(res.body.events).toHaveLength(1);
    expect(res.body.next).toBe(res.body.events[0].position);
  });
});

describe('GET /feed refusals', () => {
  it('when the token is missing or wrong, then 401 with WWW-Authenticate and no events', async () => {
    await storeDeliveries(bed.database.db, [delivery()]);
    await assignPositions(feed.db);
    const none = await request(app).get('/feed').expect(401);
    expect(none.headers['www-authenticate']).toBe('Bearer');
    expect(none.body).toEqual({ error: 'unauthorised' });
    const wrong = await request(app)
      .get('/feed')
      .set('Authorization', `Bearer ${TOKEN}x`)
      .expect(401);
    expect(wrong.body.events).toBeUndefined();
  });

  it('when the scheme is written in another case (bearer, BEARER), then the token is accepted: schemes are case-insensitive', async () => {
    for (const scheme of ['bearer', 'BEARER']) {
      await request(app).get('/feed').set('Authorization', `${scheme} ${TOKEN}`).expect(200);
    }
    // The token itself is compared exactly.
    await request(app)
      .get('/feed')
      .set('Authorization', `bearer ${TOKEN.toUpperCase()}x`)
      .expect(401);
  });

  it.each([
    ['after=-1', 'after'],
    ['after=abc', 'after'],
    ['limit=0', 'limit'],
    ['limit=501', 'limit'],
    ['wait=31', 'wait'],
    ['wait=1.5', 'wait'],
    // Read as absent, a repeated after= silently restarted the feed from 0.
    ['after=5&after=0', 'after'],
    ['limit=1&limit=2', 'limit'],
  ])('when the query is %s, then 400 naming %s', async (query, name) => {
    const res = await request(app)
      .get(`/feed?${query}`)
      .set('Authorization', `Bearer ${TOKEN}`)
      .expect(400);
    expect(res.body.error).toContain(name);
  });
});
