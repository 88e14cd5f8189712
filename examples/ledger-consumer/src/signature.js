import { Buffer } from 'node:buffer';
import { timingSafeEqual } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/**
 * @typedef {{ ok: true, event: unknown } | { ok: false, status: 400 | 401, reason: string }} Checked
 * @typedef {(raw: Buffer, headers: Record<string, string>) => Checked} SignatureCheck
 */

/**
 * The Standard Webhooks check every event passes before it is parsed, whichever way it came,
 * over the exact bytes, any one secret verifying being enough (a rotation).
 *
 * A POST: `new Webhook(secret).verify(raw, headers)`, which also refuses a `webhook-timestamp`
 * more than 5 minutes off (a replayed request). A broker message (`ageLimit: false`): the same
 * signature, without the age limit: a message may wait in its stream or queue for hours while
 * this consumer is down, and it is the broker, not the open internet, that hands it over (a
 * repeat is stored once anyway). With no secrets at all (a broker endpoint the receiver signs
 * with none) the body is only parsed: then the broker's access control is all that vouches for it.
 *
 * @param {string[]} secrets  `whsec_…`
 * @param {{ ageLimit?: boolean }} [options]
 * @returns {SignatureCheck}
 */
export function createSignatureCheck(secrets, { ageLimit = true } = {}) {
  const verifiers = secrets.map((secret) => new Webhook(secret));
  return (raw, headers) => {
    if (verifiers.length === 0) return parsed(raw);
    for (const verifier of verifiers) {
      if (!ageLimit) {
        if (signedBy(verifier, raw, headers)) return parsed(raw);
        continue;
      }
      try {
        return { ok: true, event: verifier.verify(raw, headers) };
      } catch (error) {
        // Signed, but not JSON (the library parses only after the signature matched).
        if (error instanceof SyntaxError) return notJson();
        if (!(error instanceof WebhookVerificationError)) throw error;
      }
    }
    return { ok: false, status: 401, reason: 'signature does not verify' };
  };
}

/**
 * Whether one of `webhook-signature`'s `v1,` entries is the library's own signature of this id,
 * timestamp and body (compared in constant time), whatever the timestamp's age.
 *
 * @param {Webhook} verifier
 * @param {Buffer} raw
 * @param {Record<string, string>} headers
 */
function signedBy(verifier, raw, headers) {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  const signatures = headers['webhook-signature'];
  if (!id || !Number.isInteger(timestamp) || !signatures) return false;
  const expected = Buffer.from(verifier.sign(id, new Date(timestamp * 1000), raw));
  return signatures.split(' ').some((entry) => {
    const candidate = Buffer.from(entry);
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
}

/** @param {Buffer} raw @returns {Checked} */
function parsed(raw) {
  try {
    return { ok: true, event: JSON.parse(raw.toString('utf8')) };
  } catch {
    return notJson();
  }
}

/** @returns {Checked} */
const notJson = () => ({ ok: false, status: 400, reason: 'body is not JSON' });

/**
 * `webhook-id`, `webhook-timestamp`, `webhook-signature` as single strings, from HTTP headers or
 * a broker message's headers (any case). A repeated one is left out (and so refused as
 * missing): which copy was signed is not for us to guess.
 *
 * @param {Record<string, unknown>} headers
 * @returns {Record<string, string>}
 */
export function signatureHeaders(headers) {
  /** @type {Record<string, string>} */
  const picked = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (['webhook-id', 'webhook-timestamp', 'webhook-signature'].includes(lower)) {
      if (typeof value === 'string') picked[lower] = value;
    }
  }
  return picked;
}
