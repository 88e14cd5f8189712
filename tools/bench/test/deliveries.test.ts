import { generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { paymentBody } from '../../common/payment-body.ts';
import { createDeliveryPool, FIRST_WEBHOOK_ID } from '../deliveries.ts';

describe('createDeliveryPool', () => {
  it('when grown, then every delivery is a distinct, correctly signed NPPReceivePayment of 400-600 bytes', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pool = createDeliveryPool({
      privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      secret: 'Basic c2VjcmV0',
    });
    await pool.ensure(150);
    await pool.ensure(301);
    expect(pool.size).toBe(301);

    const all = Array.from({ length: pool.size }, (_, i) => pool.at(i));
    const ids = new Set(all.map((d) => d.headers.Webhookid));
    const transactions = new Set(
      all.map((d) => (JSON.parse(d.body) as { TransactionId: string }).TransactionId),
    );
    expect(ids.size).toBe(301);
    expect(transactions.size).toBe(301);
    for (const delivery of all) {
      const bytes = Buffer.byteLength(delivery.body);
      expect(bytes).toBeGreaterThanOrEqual(400);
      expect(bytes).toBeLessThanOrEqual(600);
      expect(delivery.headers.Authorisation).toBe('Basic c2VjcmV0');
      const signature = Buffer.from(delivery.headers['Verification-Signature'] ?? '', 'base64');
      expect(verify('sha256', Buffer.from(delivery.body), publicKey, signature)).toBe(true);
    }
  });

  it('when the pool starts at a later delivery number, then its Webhookids and bodies start there', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pool = createDeliveryPool({
      privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      secret: 's',
      firstIndex: 5000,
    });
    await pool.ensure(2);
    expect(pool.at(0).headers.Webhookid).toBe(String(FIRST_WEBHOOK_ID + 5000));
    expect(pool.at(1).body).toBe(paymentBody(5001));
  });

  it('when asked for a delivery it does not hold, then it throws', () => {
    const pool = createDeliveryPool({ privateKeyPem: 'unused', secret: 's' });
    expect(() => pool.at(0)).toThrow(RangeError);
  });
});
