import { Buffer } from 'node:buffer';
import { describeError } from './log.js';
import { createSignatureCheck, signatureHeaders } from './signature.js';

/**
 * @typedef {{ status: number, text?: string, headers?: Record<string, string> }} PushAnswer
 * @typedef {object} VerifiedPush
 * @property {unknown} event      the body, parsed by the library once the signature matched
 * @property {Buffer} raw         the exact bytes the signature covers
 * @property {string} webhookId   the signed `webhook-id`
 * @typedef {object} RefusedPush
 * @property {Buffer} raw
 * @property {string | undefined} webhookId  the `webhook-id` header as sent (not verified)
 * @property {400 | 401} status
 * @property {string} reason
 * @typedef {(req: import('node:http').IncomingMessage,
 *   res: import('node:http').ServerResponse) => void} RequestListener
 */

/**
 * The Standard Webhooks side of push, with nothing of the ledger in it: every POST is read
 * (at most `maxBodyBytes`) and verified with the stock library over the raw bytes, before any
 * JSON parsing; only then does `onVerified` see it, and its answer is sent.
 *
 *   200  GET /healthz
 *   400  signed, but not JSON (the library parses only after the signature matched)
 *   401  missing or wrong signature, or a timestamp more than 5 minutes off (a replay)
 *   405  not a POST
 *   413  body above `maxBodyBytes`
 *   500  `onVerified` failed
 *
 * @param {object} options
 * @param {string[]} options.secrets  `whsec_…`; any one verifying is enough (a rotation)
 * @param {(push: VerifiedPush) => Promise<PushAnswer | null>} options.onVerified
 *   the answer, or null to close the connection without one
 * @param {(refused: RefusedPush) => void} [options.onRefused]  a POST answered 400 or 401 here
 * @param {import('./log.js').Log} options.log
 * @param {number} [options.maxBodyBytes]
 * @returns {RequestListener}
 */
export function createPushHandler(options) {
  const check = createSignatureCheck(options.secrets);
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const { log } = options;

  /**
   * @param {import('node:http').IncomingMessage} req
   * @param {import('node:http').ServerResponse} res
   */
  const handle = async (req, res) => {
    if (req.method === 'GET' && req.url === '/healthz') return answer(res, 200, 'ok');
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return answer(res, 405, 'POST only');
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBodyBytes) return refuseTooLarge(req, res);

    const raw = await readBody(req, maxBodyBytes);
    if (raw === undefined) return refuseTooLarge(req, res);

    // The signature, over the exact bytes received. Only the three headers, each once.
    const headers = signatureHeaders(/** @type {Record<string, unknown>} */ (req.headers));
    /** @type {(status: 400 | 401, reason: string) => void} */
    const refuse = (status, reason) => {
      options.onRefused?.({ raw, webhookId: headers['webhook-id'], status, reason });
      answer(res, status, reason);
    };
    const checked = check(raw, headers);
    if (!checked.ok) return refuse(checked.status, checked.reason);
    const { event } = checked;

    const webhookId = /** @type {string} */ (headers['webhook-id']);
    const reply = await options.onVerified({ event, raw, webhookId });
    if (reply === null) {
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
    return answer(res, reply.status, reply.text);
  };

  return (req, res) => {
    handle(req, res).catch((error) => {
      log.error('request failed', { error: describeError(error) });
      if (!res.headersSent) answer(res, 500, 'internal error');
      else res.destroy();
    });
  };
}

/**
 * The body, or undefined once it passes `max` bytes (reading stops there). A request that
 * does not arrive in time is ended by the server's `requestTimeout`.
 *
 * @param {import('node:http').IncomingMessage} req
 * @param {number} max
 * @returns {Promise<Buffer | undefined>}
 */
function readBody(req, max) {
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    const onData = (/** @type {Buffer} */ chunk) => {
      size += chunk.length;
      if (size > max) {
        req.off('data', onData).off('end', onEnd).pause();
        resolve(undefined);
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req
      .on('data', onData)
      .on('end', onEnd)
      .once('error', reject)
      // After 'end' this changes nothing; before it, the sender went away mid-body.
      .once('close', () => reject(new Error('connection closed before the body was complete')));
  });
}

/**
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 */
function refuseTooLarge(req, res) {
  // Stop reading: answer, then close the connection instead of draining the rest.
  res.setHeader('Connection', 'close');
  answer(res, 413, 'body too large');
  res.once('finish', () => req.destroy());
}

/**
 * Nothing when an answer went already, or the sender is gone (it gave up waiting).
 *
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {string} [text]
 */
function answer(res, status, text) {
  if (res.headersSent || res.destroyed) return;
  if (text === undefined) {
    res.writeHead(status).end();
  } else {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${text}\n`);
  }
}
