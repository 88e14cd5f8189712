import { beforeEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../../../src/lib/database/database.ts';
import { bodyBytes, freshWebhookId, sendDelivery } from '../../support/deliveries.ts';
import { nppPayment, rejectionRecord } from '../../support/sample-bodies.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

const bed = useTestbed();
let built: TestApp;

beforeEach(() => {
  built = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
});

describe('redelivery (check 6)', () => {
  it('when the same Webhookid arrives twice, then both answer 200 and one delivery and one payment exist', async () => {
    const webhookId = freshWebhookId();
    const body = JSON.stringify(nppPayment());
    const first = await sendDelivery(built.app, {
      body,
      webhookId,
      signWith: bed.signer.privateKey,
    });
    const second = await sendDelivery(built.app, {
      body,
      webhookId,
      signWith: bed.signer.privateKey,
    });

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.body.statusDescription).toBe('Delivery stored');
    expect(second.body).toMatchObject({
      status: 'Ok',
      statusDescription: 'Delivery already received',
    });
    expect(await bed.database.count('webhook_deliveries')).toBe(1);
    expect(await bed.database.count('npp_payments')).toBe(1);
    expect(built.logs.filter((line) => line.outcome === 'duplicate')).toHaveLength(1);
  });

  it('when a stored body is replayed under a new Webhookid, then 200, nothing new is written, and the log says replay', async () => {
    const body = JSON.stringify(nppPayment());
    const original = freshWebhookId();
    await sendDelivery(built.app, {
      body,
      webhookId: original,
      signWith: bed.signer.privateKey,
    }).expect(200);
    const replay = await sendDelivery(built.app, { body, signWith: bed.signer.privateKey });

    expect(replay.status).toBe(200);
    expect(replay.body.statusDescription).toBe('Delivery already received');
    expect(await bed.database.count('webhook_deliveries')).toBe(1);
    expect(built.logs.find((line) => line.outcome === 'duplicate')).toMatchObject({
      replayOf: original,
    });
  });

  it('when a stored Webhookid comes back with a body that fails validation, then 200 (check 6 before 7) and nothing is quarantined', async () => {
    const webhookId = freshWebhookId();
    await sendDelivery(built.app, {
      body: nppPayment(),
      webhookId,
      signWith: bed.signer.privateKey,
    }).expect(200);
    const res = await sendDelivery(built.app, {
      body: '{"not":"a payment"}',
      webhookId,
      signWith: bed.signer.privateKey,
    });

    expect(res.status).toBe(200);
    expect(await bed.database.count('quarantined_deliveries')).toBe(0);
    expect(built.logs.find((line) => line.outcome === 'duplicate')).toMatchObject({
      sameIdDifferentBody: true,
    });
  });

  it('when a new delivery repeats a stored TransactionId, then it is kept as a delivery but the payment is counted once', async () => {
    const payment = nppPayment();
    await sendDelivery(built.app, { body: payment, signWith: bed.signer.privateKey }).expect(200);
    // Different bytes (another field changed), same business key.
    const res = await sendDelivery(built.app, {
      body: { ...payment, PaymentDescription: 'resent' },
      signWith: bed.signer.privateKey,
    });

    expect(res.status).toBe(200);
    expect(await bed.database.count('webhook_deliveries')).toBe(2);
    expect(await bed.database.count('npp_payments')).toBe(1);
    expect(built.logs.filter((line) => line.outcome === 'stored')).toEqual([
      expect.objectContaining({ typedRowsInserted: 1, typedRowsAlreadyStored: 0 }),
      expect.objectContaining({ typedRowsInserted: 0, typedRowsAlreadyStored: 1 }),
    ]);
  });

  it('when a rejection batch overlaps a stored one, then only the new rejection ids are added', async () => {
    const [a, b, c] = [rejectionRecord(), rejectionRecord(), rejectionRecord()];
    const event = 'InboundDirectCreditRejections';
    await sendDelivery(built.app, { event, body: [a, b], signWith: bed.signer.privateKey }).expect(
      200,
    );
    await sendDelivery(built.app, { event, body: [b, c], signWith: bed.signer.privateKey }).expect(
      200,
    );

    const ids = await bed.database.query<{ rejection_id: string }>(
      'SELECT rejection_id FROM credit_rejections ORDER BY rejection_id',
    );
    expect(ids.map((row) => row.rejection_id)).toEqual([a, b, c].map((r) => String(r.id)).sort());
  });
});

describe('concurrent duplicates', () => {
  it('when 25 copies of one delivery arrive at once, then all answer 200 and exactly one of each row exists', async () => {
    const webhookId = freshWebhookId();
    const body = bodyBytes(nppPayment());
    const answers = await Promise.all(
      Array.from({ length: 25 }, () =>
        sendDelivery(built.app, { body, webhookId, signWith: bed.signer.privateKey }),
      ),
    );

    expect(answers.map((res) => res.status)).toEqual(Array(25).fill(200));
    expect(answers.filter((res) => res.body.statusDescription === 'Delivery stored')).toHaveLength(
      1,
    );
    expect(await bed.database.count('webhook_deliveries')).toBe(1);
    expect(await bed.database.count('npp_payments')).toBe(1);
  });

  it('when the same body races under 10 different Webhookids (replays), then one delivery is stored and all answer 200', async () => {
    const body = bodyBytes(nppPayment());
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        sendDelivery(built.app, { body, signWith: bed.signer.privateKey }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(10).fill(200));
    expect(await bed.database.count('webhook_deliveries')).toBe(1);
  });

  it('when two instances (own pools) on one database receive the same deliveries at once, then each is stored once', async () => {
    const otherDb = createDatabase({ url: bed.database.url, poolMax: 5 });
    const other = buildTestApp({ db: otherDb, publicKey: bed.signer.publicKey });
    const deliveries = Array.from({ length: 20 }, () => ({
      webhookId: freshWebhookId(),
      body: bodyBytes(nppPayment()),
    }));
    const answers = await Promise.all(
      deliveries.flatMap((delivery) =>
        [built.app, other.app, built.app].map((app) =>
          sendDelivery(app, { ...delivery, signWith: bed.signer.privateKey }),
        ),
      ),
    );
    expect(answers.every((res) => res.status === 200)).toBe(true);
    expect(await bed.database.count('webhook_deliveries')).toBe(20);
    expect(await bed.database.count('npp_payments')).toBe(20);
    await otherDb.destroy();
  });
});
