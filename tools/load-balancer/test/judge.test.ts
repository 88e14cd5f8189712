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

      await store.clear();
      expect((await store.read()).deliveries.size).toBe(0);
      expect(await store.feedProgress()).toEqual({ total: 0, unsent: 0, dead: 0 });
    } finally {
      await store.close();
    }
  });
});
