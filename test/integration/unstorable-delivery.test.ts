import { describe, expect, it } from 'vitest';
import { receiveDelivery } from '../../src/delivery/receive-delivery.ts';
import { findEventModel } from '../../src/events/registry.ts';
import { UnstorableDeliveryError } from '../../src/storage/delivery-batcher.ts';
import { createConfiguredKeySource } from '../../src/verification/key-source.ts';
import { bodyBytes, freshWebhookId } from '../support/deliveries.ts';
import { nppPayment } from '../support/sample-bodies.ts';
import { signBody } from '../support/signing.ts';
import { useTestbed } from '../support/testbed.ts';

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
