import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { eventProblem } from './events.js';
import { reportStored, storeEvent } from './ledger.js';
import { describeError } from './log.js';

/**
 * Push mode: the receiver's relay POSTs each event here (FEED_HTTP_URL), signed per Standard
 * Webhooks. Every POST is verified with the stock library over the raw bytes, before any JSON
 * parsing, then stored once; the answer is 2xx only after the row is committed, so a crash or a
 * database failure before that means the relay sends the event again.
 *
 *   204  stored now, or stored before (a repeat: the relay may send an event twice)
 *   400  signed, but not an event this consumer can store (the relay retries, then dead-letters)
 *   401  missing or wrong signature, or a timestamp more than 5 minutes off (a replay)
 *   405  not a POST (GET /healthz answers 200)
 *   413  body above MAX_BODY_BYTES
 *   503  the database failed: the relay retries
 *
 * @param {object} options
 * @param {string[]} options.secrets  `whsec_…`; any one verifying is enough (a rotation)
 * @param {import('./ledger.js').Queryable} options.db
 * @param {import('./log.js').Log} options.log
 * @param {number} [options.maxBodyBytes]
 * @param {number} [options.requestTimeoutMs]  the whole request must arrive within this
 * @returns {import('node:http').Server}
 */
export function createPushServer(options) {
  const verifiers = options.secrets.map((secret) => new Webhook(secret));
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const { db, log } = options;

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

    // 1. The signature, over the exact bytes received. Only the three headers, each once.
    const headers = signatureHeaders(req.headers);
    /** @type {unknown} */
    let event;
    let verified = false;
    for (const verifier of verifiers) {
      try {
        event = verifier.verify(raw, headers);
        verified = true;
        break;
      } catch (error) {
        if (error instanceof SyntaxError) {
          // Signed, but not JSON (the library parses only after the signature matched).
          return answer(res, 400, 'body is not JSON');
        }
        if (!(error instanceof WebhookVerificationError)) throw error;
      }
    }
    if (!verified) return answer(res, 401, 'signature does not verify');

    // 2. An event this consumer understands, named as the signed webhook-id says.
    const problem = eventProblem(event);
    if (problem !== undefined) {
      log.warn('signed event refused', { webhookId: headers['webhook-id'], problem });
      return answer(res, 400, problem);
    }
    const id = /** @type {import('./events.js').FeedEvent} */ (event).id;
    if (id !== headers['webhook-id']) return answer(res, 400, 'id differs from webhook-id');

    // 3. Stored once; answered only after the commit.
    let stored;
    try {
      stored = await storeEvent(db, raw.toString('utf8'));
    } catch (error) {
      log.error('event not stored; the relay will send it again', {
        eventId: id,
        error: describeError(error),
      });
      res.setHeader('Retry-After', '5');
      return answer(res, 503, 'not stored; retry');
    }
    if (stored.length === 0) log.info('event already stored', { via: 'push', eventId: id });
    reportStored(log, stored, 'push');
    return answer(res, 204);
  };

  const server = createServer(
    {
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      headersTimeout: 10_000,
      keepAliveTimeout: 5_000,
    },
    (req, res) => {
      handle(req, res).catch((error) => {
        log.error('request failed', { error: describeError(error) });
        if (!res.headersSent) answer(res, 500, 'internal error');
        else res.destroy();
      });
    },
  );
  return server;
}

/**
 * `webhook-id`, `webhook-timestamp`, `webhook-signature` as single strings. A repeated one is
 * left out (and so refused as missing): which copy was signed is not for us to guess.
 *
 * @param {import('node:http').IncomingHttpHeaders} headers
 * @returns {Record<string, string>}
 */
function signatureHeaders(headers) {
  /** @type {Record<string, string>} */
  const picked = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = headers[name];
    if (typeof value === 'string') picked[name] = value;
  }
  return picked;
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
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {string} [text]
 */
function answer(res, status, text) {
  if (res.headersSent) return;
  if (text === undefined) {
    res.writeHead(status).end();
  } else {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${text}\n`);
  }
}
