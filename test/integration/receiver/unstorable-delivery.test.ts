import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { receiveDelivery } from '../../../src/receiver/delivery/receive-delivery.ts';
import * as quarantineKey from '../../../migrations/2026-11-22T02-00-00_quarantine-key.ts';
import { findEventModel } from '../../../src/receiver/events/registry.ts';
import { UnstorableDeliveryError } from '../../../src/receiver/storage/delivery-batcher.ts';
import { quarantineDelivery } from '../../../src/receiver/storage/quarantine-repository.ts';
import { createConfiguredKeySource } from '../../../src/receiver/verification/key-source.ts';
import {
  bodyBytes,
  freshWebhookId,
  sendDelivery,
  type DeliveryOptions,
} from '../../support/deliveries.ts';
import { nppPayment, rejectionRecord } from '../../support/sample-bodies.ts';
import { signBody } from '../../support/signing.ts';
import { buildTestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

const bed = useTestbed();

/** One signed, valid payment through the pipeline, with the store doing what `store` does. */
function deliverWithStore(store: () => Promise<never>) {
  const body = bodyBytes(nppPayment());
  const webhookId = freshWebhookId();
  const answer = receiveDelivery(
    {
      db: bed.database.db,
      store: { store },
      keys: createConfiguredKeySource(bed.signer.publicKey, Date.now),
      now: () => new Date(),
    },
    {
      eventName: 'NPPReceivePayment',
      model: findEventModel('NPPReceivePayment'),
      rawBody: body,
      headers: {
        'content-type': 'application/json',
        webhookid: webhookId,
        'verification-signature': signBody(body, bed.signer.privateKey),
      },
      requestId: 'r1',
      remoteAddress: null,
    },
  );
  return { webhookId, answer };
}

describe('a delivery the database can never hold', () => {
  it('when the store reports it unstorable, then it is quarantined with the reason and answered 400 (not a 500 that repeats on retry)', async () => {
    const { webhookId, answer } = deliverWithStore(() =>
      Promise.reject(new UnstorableDeliveryError(new Error('value overflows numeric format'))),
    );
    expect(await answer).toMatchObject({ httpStatus: 400, outcome: 'quarantined' });
    const rows = await bed.database.query<{ webhook_id: string; reasons: { message: string }[] }>(
      'SELECT webhook_id, reasons FROM quarantined_deliveries',
    );
    expect(rows).toEqual([
      {
        webhook_id: webhookId,
        reasons: [{ path: '', message: expect.stringMatching(/overflows numeric/) }],
      },
    ]);
  });

  it('when the store fails for any other reason, then 500 and nothing is quarantined (the platform retries)', async () => {
    const { answer } = deliverWithStore(() => Promise.reject(new Error('connection terminated')));
    expect(await answer).toMatchObject({ httpStatus: 500, outcome: 'error' });
    expect(await bed.database.count('quarantined_deliveries')).toBe(0);
  });
});

/** Random hex: a repeated character would compress below the index limit and fit after all. */
const incompressible = (chars: number) => randomBytes(chars / 2).toString('hex');

interface QuarantineRow {
  webhook_id_header: string | null;
  webhook_id: string | null;
  headers: Record<string, string>;
  reasons: { path: string; message: string }[];
}
const quarantineRows = () =>
  bed.database.query<QuarantineRow>(
    'SELECT webhook_id_header, webhook_id, headers, reasons FROM quarantined_deliveries ORDER BY id',
  );

describe('values Postgres cannot index, through the HTTP route', () => {
  const send = (options: Omit<DeliveryOptions, 'signWith'>) =>
    sendDelivery(buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey }).app, {
      ...options,
      signWith: bed.signer.privateKey,
    });

  it.each([
    [
      'a 4,000-character TransactionId',
      'NPPReceivePayment',
      () => nppPayment({ TransactionId: incompressible(4000) }),
    ],
    [
      'a 4,000-character rejection id',
      'NPPCreditRejections',
      () => [rejectionRecord({ id: incompressible(4000) })],
    ],
  ])(
    'when a delivery carries %s, then 400, it is quarantined once with the database reason, and no delivery row is left',
    async (_name, event, body) => {
      const webhookId = freshWebhookId();
      const payload = bodyBytes(body());
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const res = await send({ event, body: payload, webhookId });
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([
          { path: '', message: expect.stringMatching(/index row size .* exceeds/) },
        ]);
      }
      const rows = await quarantineRows();
      expect(rows).toEqual([
        expect.objectContaining({
          webhook_id_header: webhookId,
          webhook_id: webhookId,
          reasons: [{ path: '', message: expect.stringMatching(/54000.*index row size/) }],
        }),
      ]);
      expect(await bed.database.count('webhook_deliveries')).toBe(0);
      expect(await bed.database.count('npp_payments')).toBe(0);
      expect(await bed.database.count('credit_rejections')).toBe(0);
    },
  );

  it('when a 6,000-character malformed Webhookid arrives twice, then 400 both times and it is quarantined once, header kept whole', async () => {
    const header = incompressible(6000);
    const payload = bodyBytes(nppPayment());
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const res = await send({ body: payload, webhookId: header });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        { path: 'headers.Webhookid', message: expect.stringMatching(/1 to 19 digits/) },
      ]);
    }
    const rows = await quarantineRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.webhook_id_header).toBe(header);
    expect(rows[0]?.headers.webhookid).toBe(header);
    expect(await bed.database.count('webhook_deliveries')).toBe(0);
  });

  it('when a valid delivery carries a 6,000-character header of another name, then it is stored with that header whole', async () => {
    const long = incompressible(6000);
    const webhookId = freshWebhookId();
    const res = await send({ body: nppPayment(), webhookId, headers: { 'X-Trace': long } });
    expect(res.status).toBe(200);
    const [row] = await bed.database.query<{ headers: Record<string, string> }>(
      'SELECT headers FROM webhook_deliveries WHERE webhook_id = $1',
      [webhookId],
    );
    expect(row?.headers['x-trace']).toBe(long);
    expect(await bed.database.count('npp_payments')).toBe(1);
    expect(await bed.database.count('quarantined_deliveries')).toBe(0);
  });
});

describe('the quarantine key upgrade', () => {
  const asUnknown = () => bed.database.db as unknown as Kysely<unknown>;
  const refused = (webhookIdHeader: string | null, body: string) => ({
    eventName: 'NPPReceivePayment',
    webhookIdHeader,
    webhookId: null,
    receivedAt: new Date(),
    bodySha256: createHash('sha256').update(body).digest('hex'),
    rawBody: Buffer.from(body),
    contentType: 'application/json',
    headers: {},
    reasons: [{ path: 'headers.Webhookid', message: 'refused' }],
    requestId: null,
    remoteAddress: null,
    signingKeyFingerprint: null,
  });

  it('when rows written under the old key are upgraded, then they are kept and still count: the same refused delivery is not kept twice', async () => {
    await quarantineKey.down(asUnknown());
    try {
      // Written by the old schema: a missing header, a malformed one, the same body under both.
      expect((await quarantineDelivery(bed.database.db, refused(null, '{"a":1}'))).written).toBe(
        true,
      );
      expect((await quarantineDelivery(bed.database.db, refused('abc', '{"a":1}'))).written).toBe(
        true,
      );
      expect((await quarantineDelivery(bed.database.db, refused('abc', '{"a":1}'))).written).toBe(
        false,
      );
    } finally {
      await quarantineKey.up(asUnknown());
    }
    const before = await bed.database.rows('quarantined_deliveries', 'id');
    expect(before).toHaveLength(2);

    expect((await quarantineDelivery(bed.database.db, refused(null, '{"a":1}'))).written).toBe(
      false,
    );
    expect((await quarantineDelivery(bed.database.db, refused('abc', '{"a":1}'))).written).toBe(
      false,
    );
    expect((await quarantineDelivery(bed.database.db, refused('abd', '{"a":1}'))).written).toBe(
      true,
    );
    expect((await quarantineDelivery(bed.database.db, refused(null, '{"a":2}'))).written).toBe(
      true,
    );
    const long = incompressible(6000);
    expect((await quarantineDelivery(bed.database.db, refused(long, '{"a":1}'))).written).toBe(
      true,
    );
    expect((await quarantineDelivery(bed.database.db, refused(long, '{"a":1}'))).written).toBe(
      false,
    );
    const after = await bed.database.rows('quarantined_deliveries', 'id');
    expect(after.slice(0, 2)).toEqual(before);
    expect(after).toHaveLength(5);
  });
});
