import { generateKeyPairSync } from 'node:crypto';
import { postBytes } from '../../common/post-delivery.ts';
import { signBody as signDelivery } from '../../common/signing.ts';

/**
 * A forger who knows the subscription's token but not the platform's private key: a payment
 * signed with a key of its own, straight to the receiver. The receiver must answer 401 and
 * store nothing.
 */
export async function sendForgedPayment(
  receiver: string,
  secret: string,
): Promise<{ status: number; body: string }> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const body = Buffer.from(
    JSON.stringify({
      TransactionId: `FORGED${Date.now()}`,
      DateTime: '2024-03-05T09:41:07',
      Amount: '9999.00',
    }),
  );
  const answer = await postBytes(new URL(`${receiver}/webhooks/NPPReceivePayment`), {
    headers: {
      'Content-Type': 'application/json',
      Webhookid: String(Date.now() * 1000 + 999),
      Authorisation: secret,
      'Verification-Signature': signDelivery(body, privateKey),
    },
    body,
    timeoutMs: 10_000,
  });
  return { status: answer.status, body: answer.body.toString('utf8', 0, 500) };
}
