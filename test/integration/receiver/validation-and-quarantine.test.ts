import { beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { bodyBytes, freshWebhookId, sendDelivery } from '../../support/deliveries.ts';
import { nppPayment, rejectionRecord } from '../../support/sample-bodies.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

const bed = useTestbed();
let built: TestApp;

interface QuarantineRow {
  id: string;
  event_name: string;
  webhook_id_header: string | null;
  webhook_id: string | null;
  body_sha256: string;
  raw_body: Buffer;
  headers: Record<string, string>;
  reasons: { path: string; message: string }[];
}

beforeEach(() => {
  built = buildTestApp({
    db: bed.database.db,
    publicKey: bed.signer.publicKey,
    secrets: ['Basic s3cret'],
  });
});

const quarantined = () =>
  bed.database.query<QuarantineRow>('SELECT * FROM quarantined_deliveries ORDER BY id');

async function expectNoDelivery(): Promise<void> {
  expect(await bed.database.count('webhook_deliveries')).toBe(0);
  expect(await bed.database.count('npp_payments')).toBe(0);
  expect(await bed.database.count('credit_rejections')).toBe(0);
}

describe('Webhookid (check 5)', () => {
  const cases: [string, string | null, RegExp][] = [
    ['missing', null, /missing/],
    ['not a number', 'abc', /1 to 19 digits/],
    ['negative', '-5', /1 to 19 digits/],
    ['20 digits', '12345678901234567890', /1 to 19 digits/],
    ['above the bigint range', '9223372036854775808', /larger than/],
    // Byte 0xA0 on the wire: a non-ASCII space is not HTTP whitespace, so it is not trimmed.
    ['led by a no-break space', '\u00a0123', /1 to 19 digits/],
    ['followed by a no-break space', '123\u00a0', /1 to 19 digits/],
  ];
  it.each(cases)(
    'when the Webhookid is %s, then 400 and the delivery is quarantined with the reason',
    async (_name, webhookId, reason) => {
      const body = bodyBytes(nppPayment());
      const res = await sendDelivery(built.app, {
        body,
        webhookId,
        signWith: bed.signer.privateKey,
        secret: 'Basic s3cret',
      });

      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        status: 'BadRequest',
        errors: [{ path: 'headers.Webhookid', message: expect.stringMatching(reason) }],
      });
      const [row] = await quarantined();
      expect(row).toMatchObject({
        event_name: 'NPPReceivePayment',
        webhook_id_header: webhookId,
        webhook_id: null,
      });
      expect(row?.raw_body.equals(body)).toBe(true);
      expect(row?.reasons[0]?.message).toMatch(reason);
      expect(row?.headers).not.toHaveProperty('authorisation');
      await expectNoDelivery();
    },
  );
});

describe('body (check 7)', () => {
  it('when the body is not JSON, then 400, errors say so, and it is quarantined', async () => {
    const res = await sendDelivery(built.app, {
      body: '{"TransactionId": ',
      signWith: bed.signer.privateKey,
      secret: 'Basic s3cret',
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: '', message: 'Body is not valid JSON' }]);
    expect(await quarantined()).toHaveLength(1);
    await expectNoDelivery();
  });

  it('when the body is empty, then 400 and it is quarantined', async () => {
    const res = await sendDelivery(built.app, {
      body: '',
      signWith: bed.signer.privateKey,
      secret: 'Basic s3cret',
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: '', message: 'Body is empty' }]);
    expect(await quarantined()).toHaveLength(1);
  });

  it.each([
    ['text/plain', /not JSON/],
    [null, /missing/],
    ['application/json; charset=latin1', /UTF-8 only/],
  ])(
    'when the content type is %s, then 400 and it is quarantined',
    async (contentType, message) => {
      const res = await sendDelivery(built.app, {
        body: nppPayment(),
        contentType,
        signWith: bed.signer.privateKey,
        secret: 'Basic s3cret',
      });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        { path: 'headers.Content-Type', message: expect.stringMatching(message) },
      ]);
      expect(await quarantined()).toHaveLength(1);
      await expectNoDelivery();
    },
  );

  it('when the content type carries a UTF-8 charset parameter, then it is accepted', async () => {
    const res = await sendDelivery(built.app, {
      body: nppPayment(),
      contentType: 'application/json; charset=utf-8',
      signWith: bed.signer.privateKey,
      secret: 'Basic s3cret',
    });
    expect(res.status).toBe(200);
  });

  it('when a payment lacks TransactionId and has a non-numeric Amount, then 400 lists both fields and it is quarantined', async () => {
    const body = nppPayment({ TransactionId: undefined, Amount: 'ten dollars' });
    const webhookId = freshWebhookId();
    const res = await sendDelivery(built.app, {
      body,
      webhookId,
      signWith: bed.signer.privateKey,
      secret: 'Basic s3cret',
    });

    expect(res.status).toBe(400);
    const paths = (res.body.errors as { path: string }[]).map((error) => error.path).sort();
    expect(paths).toEqual(['Amount', 'TransactionId']);
    const [row] = await quarantined();
    expect(row).toMatchObject({
      webhook_id: webhookId,
      body_sha256: createHash('sha256').update(bodyBytes(body)).digest('hex'),
    });
    expect(row?.reasons.map((reason) => reason.path).sort()).toEqual(['Amount', 'TransactionId']);
    await expectNoDelivery();
  });

  it('when a rejection batch has one bad record, then 400 names its index and nothing of the batch is stored', async () => {
    const body = [rejectionRecord(), rejectionRecord({ id: null }), rejectionRecord()];
    const res = await sendDelivery(built.app, {
      event: 'InboundDirectCreditRejections',
      body,
      signWith: bed.signer.privateKey,
      secret: 'Basic s3cret',
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: '[1].id' })]);
    expect(await quarantined()).toHaveLength(1);
    await expectNoDelivery();
  });

  it('when InboundDirectCreditRejections sends an object instead of an array, then 400 and it is quarantined', async () => {
    const res = await sendDelivery(built.app, {
      event: 'InboundDirectCreditRejections',
      body: rejectionRecord(),
      signWith: bed.signer.privateKey,
      secret: 'Basic s3cret',
    });
    expect(res.status).toBe(400);
    expect(await quarantined()).toHaveLength(1);
  });

  it('when an unmodelled event is not JSON, then 400 and it is quarantined (kept, never dropped)', async () => {
    const res = await sendDelivery(built.app, {
      event: 'NppReturn',
      body: 'plain words',
      signWith: bed.signer.privateKey,
      secret: 'Basic s3cret',
    });
    expect(res.status).toBe(400);
    expect((await quarantined())[0]?.event_name).toBe('NppReturn');
  });

  it('when the TransactionId holds a NUL character, then 400 and it is quarantined (never a 500 that loses it)', async () => {
    const text = JSON.stringify(nppPayment({ TransactionId: 'N1\u0000' }));
    const res = await sendDelivery(built.app, {
      body: text,
      signWith: bed.signer.privateKey,
      secret: 'Basic s3cret',
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        path: 'TransactionId',
        message: 'TransactionId contains a NUL character, which cannot be stored',
      },
    ]);
    expect(await quarantined()).toHaveLength(1);
    await expectNoDelivery();
  });

  it('when the same refused delivery is sent again, then it answers 400 again and one quarantine row is kept', async () => {
    const options = {
      body: '{oops',
      webhookId: freshWebhookId(),
      signWith: bed.signer.privateKey,
      secret: 'Basic s3cret',
    };
    await sendDelivery(built.app, options).expect(400);
    await sendDelivery(built.app, options).expect(400);
    expect(await quarantined()).toHaveLength(1);
  });

  it('when a refused delivery is unauthenticated, then nothing is quarantined', async () => {
    await sendDelivery(built.app, {
      body: '{oops',
      signWith: bed.signer.privateKey,
      secret: 'Basic wrong',
    }).expect(401);
    await sendDelivery(built.app, { body: '{oops', secret: 'Basic s3cret' }).expect(401);
    expect(await quarantined()).toHaveLength(0);
  });

  it('when a delivery is quarantined, then the log line says so with the Webhookid, the row id and the reasons', async () => {
    const webhookId = freshWebhookId();
    await sendDelivery(built.app, {
      body: '[]',
      webhookId,
      signWith: bed.signer.privateKey,
      secret: 'Basic s3cret',
    }).expect(400);
    const [row] = (await quarantined()).filter((r) => String(r.webhook_id) === webhookId);
    const line = built.logs.find((l) => l.outcome === 'quarantined' && l.webhookId === webhookId);
    expect(line).toMatchObject({
      webhookId,
      status: 400,
      event: 'NPPReceivePayment',
      quarantineId: String(row?.id),
      reasons: [expect.stringMatching(/./)],
    });
    // The same refused delivery again names the same row.
    await sendDelivery(built.app, {
      body: '[]',
      webhookId,
      signWith: bed.signer.privateKey,
      secret: 'Basic s3cret',
    }).expect(400);
    const again = built.logs.filter(
      (l) => l.outcome === 'quarantined' && l.webhookId === webhookId,
    );
    expect(again[1]).toMatchObject({ quarantineId: String(row?.id), quarantineRowWritten: false });
  });
});
