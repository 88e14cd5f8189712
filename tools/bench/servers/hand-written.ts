import { constants, createPublicKey, timingSafeEqual, verify } from 'node:crypto';
import express from 'express';
import pg from 'pg';

/**
 * What a merchant writes by hand: Express, the raw body, RSA-SHA256 verification of
 * Verification-Signature with node:crypto, the shared-secret check, and one INSERT per delivery.
 * No schema validation, no quarantine, no logging, no metrics. The table is created by the
 * harness: webhooks (webhook_id bigint primary key, body jsonb).
 */

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const publicKey = createPublicKey(required('SIGNING_KEY_PEM'));
const secrets = required('WEBHOOK_SECRETS')
  .split(',')
  .map((secret) => Buffer.from(secret.trim()));
const pool = new pg.Pool({
  connectionString: required('DATABASE_URL'),
  max: Number(process.env.DATABASE_POOL_MAX ?? 10),
});

function secretMatches(presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const bytes = Buffer.from(presented);
  return secrets.some((secret) => secret.length === bytes.length && timingSafeEqual(secret, bytes));
}

function signatureValid(body: Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const signature = Buffer.from(header, 'base64');
  return verify(
    'sha256',
    body,
    { key: publicKey, padding: constants.RSA_PKCS1_PADDING },
    signature,
  );
}

const app = express();
app.set('etag', false);
app.get('/healthz', (_req, res) => {
  res.json({ status: 'Ok' });
});
app.post(
  '/webhooks/:eventName',
  express.raw({ type: () => true, limit: '4mb' }),
  async (req, res) => {
    const body = req.body as Buffer;
    if (!secretMatches(req.get('authorisation') ?? req.get('authorization'))) {
      res.status(401).json({ status: 'Unauthorised' });
      return;
    }
    if (!signatureValid(body, req.get('verification-signature'))) {
      res.status(401).json({ status: 'Unauthorised' });
      return;
    }
    const webhookId = req.get('webhookid');
    if (!webhookId || !/^\d{1,19}$/.test(webhookId)) {
      res.status(400).json({ status: 'BadRequest' });
      return;
    }
    try {
      await pool.query(
        'INSERT INTO webhooks (webhook_id, body) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [webhookId, body.toString('utf8')],
      );
      res.json({ status: 'Ok' });
    } catch (error) {
      console.error('insert failed', error);
      res.status(500).json({ status: 'InternalError' });
    }
  },
);

const server = app.listen(Number(process.env.PORT ?? 3002), '127.0.0.1');
// A peer server the bench starts and stops with SIGTERM, not a tool (no words, no run-tool):
// it exits itself once closed, as a merchant's server would.
process.on('SIGTERM', () => {
  server.close(() => {
    pool.end().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('closing the pool failed', error);
        process.exit(1);
      },
    );
  });
  server.closeIdleConnections();
});
