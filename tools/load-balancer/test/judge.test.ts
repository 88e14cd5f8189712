import { describe, expect, it } from 'vitest';
import { sendDelivery } from '../../../test/support/deliveries.ts';
import { buildTestApp } from '../../../test/support/test-app.ts';
import { useTestbed } from '../../../test/support/testbed.ts';
import { judgeStorage } from '../core/judge.ts';
import { openStore } from '../core/store.ts';
import { createWorkload } from '../core/workload.ts';

/**
 * The proof's one judge of what is stored (every scenario's storage checks), on rows the real
 * receiver wrote: a workload posted through the app, read back by the proof's store.
 */

const bed = useTestbed();

const failed = (verdict: ReturnType<typeof judgeStorage>) =>
  verdict.checks.filter((c) => !c.ok).map((c) => c.name);

describe("the load-balancer proof's storage judge", () => {
  it('when a workload is stored through the app, then every storage check passes; a delivery not stored, one stored but not sent and a row in another table each fail', async () => {
    const { app } = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
    const next = createWorkload({
      tag: 'T',
      idBase: BigInt(Date.now()) * 1000n,
      privateKey: bed.signer.privateKey,
      onSignature: () => {},
    });
    // The tenth is a batch of two rejections, the rest payments.
    const deliveries = Array.from({ length: 11 }, next);
    for (const delivery of deliveries) {
      await sendDelivery(app, {
        event: delivery.eventName,
        body: delivery.body,
        webhookId: delivery.webhookId,
        signature: delivery.signature,
      }).expect(200);
    }
    const store = openStore(bed.database.url);
    try {
      const stored = await store.read();
      expect(stored.business).toHaveLength(12);
      expect(failed(judgeStorage(deliveries, stored))).toEqual([]);

      const [, ...rest] = deliveries;
      expect(failed(judgeStorage([...rest, next()], stored))).toEqual([
        'nothing lost: every delivery stored exactly once by Webhookid',
        'nothing stored that was not sent, nothing twice',
        'every payment and rejection stored exactly once by its key, in its table, with its Webhookid',
      ]);
      const misplaced = deliveries.map((delivery) => ({
        ...delivery,
        rows: delivery.rows.map((row) => ({ ...row, table: 'payto_payments' })),
      }));
      expect(failed(judgeStorage(misplaced, stored))).toEqual([
        'every payment and rejection stored exactly once by its key, in its table, with its Webhookid',
      ]);

      // The feed's state is read at the endpoint FEED_HTTP_URL declares: pending until its row
      // says otherwise (sent, dead).
      const events = stored.feedEvents.length;
      expect(events).toBe(12);
      expect(await store.feedProgress()).toEqual({ total: events, unsent: events, dead: 0 });
      await bed.database.query(
        `INSERT INTO feed_endpoint_events (endpoint_id, position, event_id, type, event_name,
           business_key, state, attempts)
         SELECT (SELECT id FROM feed_endpoints WHERE name = 'configured'), row_number() OVER (ORDER BY id),
           id, type, event_name, business_key, CASE WHEN id = (SELECT min(id) FROM feed_events)
             THEN 'dead' ELSE 'sent' END, 1
         FROM feed_events`,
      );
      await bed.database.query(`UPDATE feed_endpoints SET fanned_through = 12`);
      expect(await store.feedProgress()).toEqual({ total: events, unsent: 1, dead: 1 });
      expect((await store.read()).feedEvents.map((e) => e.relayState).sort()).toEqual([
        'dead',
        ...Array<string>(11).fill('sent'),
      ]);

      await store.clear();
      expect((await store.read()).deliveries.size).toBe(0);
      expect(await store.feedProgress()).toEqual({ total: 0, unsent: 0, dead: 0 });
      expect(
        await bed.database.query('SELECT count(*)::int AS n FROM feed_endpoint_events'),
      ).toEqual([{ n: 0 }]);
      expect(
        await bed.database.query(
          "SELECT fanned_through::int AS f FROM feed_endpoints WHERE name = 'configured'",
        ),
      ).toEqual([{ f: 0 }]);
    } finally {
      await store.close();
    }
  });
});
