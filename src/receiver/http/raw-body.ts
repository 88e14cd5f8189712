import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { RequestHandler, Response } from 'express';
import { HttpError } from '../../lib/http/http-error.ts';
import { inviteBody } from '../../lib/http/expect-continue.ts';
import type { MemoryBudget } from './memory-budget.ts';

export interface RawBodyOptions {
  limitBytes: number;
  /** Shared by every body in flight on this instance; counts inflated bytes. */
  budget: MemoryBudget;
  /**
   * The whole request must have arrived this long after it reached the app (REQUEST_TIMEOUT_MS),
   * whatever the server's own timers do; beyond it, 408 and the connection is closed.
   */
  timeoutMs?: number | undefined;
  /**
   * For a body read on probation (unverified-bodies.ts), the bytes it may have: beyond them it
   * is refused like any body over a budget (503), not 413. Undefined: not on probation. Asked
   * once, when reading begins.
   */
  probationLimit?: ((res: Response) => number | undefined) | undefined;
}

/** The reader of a body still being read, under this key on its response. */
const READING = Symbol('body being read');
type Reading = Response & { [READING]?: ((error: HttpError) => void) | undefined };

/**
 * Stops reading this response's body, if it is still being read: its bytes are released
 * before this returns, and `error` is answered (the connection then closes). False when its
 * body is not being read (not begun, or already in or refused).
 */
export function abortBodyRead(res: Response, error: HttpError): boolean {
  const abort = (res as Reading)[READING];
  if (abort === undefined) return false;
  abort(error);
  return true;
}

/**
 * Reads the exact body bytes before anything parses them (the signature covers these bytes),
 * into `req.body` as a Buffer. Reading stops as soon as the limit is passed: a declared
 * Content-Length over the limit is refused before a byte is read. A compressed body is
 * inflated and the limit applies to the inflated size, so a small bomb cannot grow past it.
 * Every byte held counts against the instance's memory budget until the answer is done.
 */
export function rawBody(options: RawBodyOptions): RequestHandler {
  const { limitBytes, budget } = options;
  return (req, res, next) => {
    const declared = Number(req.get('content-length'));
    if (declared > limitBytes) {
      next(tooLarge(limitBytes));
      return;
    }
    const probationLimit = options.probationLimit?.(res);
    if (probationLimit !== undefined && declared > probationLimit) {
      next(tooLargeForProbation());
      return;
    }
    let source: Readable;
    try {
      source = decoded(req, req.get('content-encoding'));
    } catch (error) {
      next(error);
      return;
    }

    const chunks: Buffer[] = [];
    let size = 0;
    let reserved = 0;
    const releaseAll = () => {
      budget.release(reserved);
      reserved = 0;
    };
    res.on('close', releaseAll); // 'close' comes once; 'on' spares the once-wrapper per request
    let settled = false;
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      (res as Reading)[READING] = undefined;
      clearTimeout(deadline);
      source.off('data', onData).off('end', onEnd).off('error', onError);
      req.off('close', onClose);
      if (error) {
        if (source !== req) source.destroy();
        req.pause();
        chunks.length = 0;
        releaseAll();
        next(error);
        return;
      }
      // A small body usually arrives in one chunk: it is the body as it is, without a copy.
      req.body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      next();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) settle(tooLarge(limitBytes));
      else if (probationLimit !== undefined && size > probationLimit) {
        settle(tooLargeForProbation());
      } else if (!budget.tryReserve(chunk.length)) {
        settle(new HttpError('overloaded', 'Too many request bodies in memory; retry later'));
      } else {
        reserved += chunk.length;
        chunks.push(chunk);
      }
    };
    const onEnd = () => settle();
    const onError = (error: Error) =>
      settle(new HttpError('bad-request', 'Request body could not be read', { cause: error }));
    const onClose = () => {
      if (!req.complete) settle(new HttpError('bad-request', 'Request body was cut short'));
    };
    const started = (res.locals.startedAt as number | undefined) ?? performance.now();
    const deadline =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(
            () => settle(new HttpError('request-timeout', 'Request body took too long')),
            Math.max(0, options.timeoutMs - (performance.now() - started)),
          );

    (res as Reading)[READING] = settle;
    source.on('data', onData).on('end', onEnd).on('error', onError);
    req.on('close', onClose);
    inviteBody(res);
  };
}

function decoded(req: Readable, encoding: string | undefined): Readable {
  switch ((encoding ?? 'identity').trim().toLowerCase()) {
    case 'identity':
    case '':
      return req;
    case 'gzip':
    case 'x-gzip':
      return req.pipe(zlib.createGunzip());
    case 'deflate':
      return req.pipe(zlib.createInflate());
    case 'br':
      return req.pipe(zlib.createBrotliDecompress());
    default:
      throw new HttpError('unsupported-media-type', `Content-Encoding ${encoding} not supported`);
  }
}

function tooLargeForProbation(): HttpError {
  return new HttpError('overloaded', 'Too many unverified request bodies in progress; retry later');
}

function tooLarge(limitBytes: number): HttpError {
  return new HttpError('payload-too-large', `Body larger than ${limitBytes} bytes`);
}
