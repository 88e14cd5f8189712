import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the signed content is
 * `<webhook-id>.<webhook-timestamp>.<body>`, HMAC-SHA256 keyed with the secret's bytes (the
 * base64 after `whsec_`), sent as `v1,<base64>`. Several secrets (a rotation) give several
 * signatures, space-separated, any of which a consumer may verify.
 */

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The three headers for one attempt at sending `body` (the exact bytes to be POSTed). */
export function signWebhook(
  keys: readonly Buffer[],
  id: string,
  at: Date,
  body: string,
): SignedHeaders {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const content = `${id}.${timestamp}.${body}`;
  const signatures = keys.map(
    (key) => `v1,${createHmac('sha256', key).update(content, 'utf8').digest('base64')}`,
  );
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': signatures.join(' '),
  };
}
