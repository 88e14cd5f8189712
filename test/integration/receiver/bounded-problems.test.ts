import { beforeEach, describe, expect, it } from 'vitest';
import { sendDelivery } from '../../support/deliveries.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * A signed body of four million bytes, `[1,1,1,…]`: two million bad records. Before the cap it
 * was answered with a 170 MB list of problems (a 1.9 GB peak, seconds of blocked event loop);
 * now the answer and the stored reasons list the first 100 and a count.
 */

const bed = useTestbed();
let built: TestApp;

beforeEach(() => {
  built = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
});

const ONES = Buffer.from(`[${'1,'.repeat(2 * 1024 * 1024 - 2)}1]`);

describe('the cost of one signed delivery is bounded', () => {
  it('when a signed 4 MB body holds two million bad records, then the 400 lists 100 problems and a count, and so do the stored reasons', async () => {
    const res = await sendDelivery(built.app, {
      event: 'InboundDirectCreditRejections',
      body: ONES,
      signWith: bed.signer.privateKey,
    });

    expect(res.status).toBe(400);
    expect(Buffer.byteLength(res.text)).toBeLessThan(64 * 1024);
    const errors = res.body.errors as { path: string; message: string }[];
    expect(errors).toHaveLength(101);
    expect(errors[0]).toEqual({
      path: '[0]',
      message: '[0] must be a rejection record (a JSON object)',
    });
    expect(errors[100]).toEqual({
      path: '',
      message: '2097051 more problems not listed (2097151 in all)',
    });
    const [kept] = await bed.database.query<{ reasons: unknown[] }>(
      'SELECT reasons FROM quarantined_deliveries',
    );
    expect(kept?.reasons).toEqual(errors);
    expect(await bed.database.count('webhook_deliveries')).toBe(0);
  });

  it('when a small genuine delivery is sent at the same moment, then it is stored without waiting seconds for its neighbour', async () => {
    const big = sendDelivery(built.app, {
      event: 'NPPCreditRejections',
      body: ONES,
      signWith: bed.signer.privateKey,
    }).then((res) => res.status);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    const small = await sendDelivery(built.app, {
      body: nppPayment(),
      signWith: bed.signer.privateKey,
    });
    const waited = performance.now() - started;

    expect(small.status).toBe(200);
    expect(await big).toBe(400);
    // The target is 2 s on an idle machine (before the cap: 4-8 s); the margin is for CI load.
    expect(waited).toBeLessThan(4000);
    expect(await bed.database.count('npp_payments')).toBe(1);
  });
});
