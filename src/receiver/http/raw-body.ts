import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
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

/**
 * A body's reading, under this key in its response's `res.locals` (for abortBodyRead and the
 * release when the answer is done). Never a property of the request or response objects
 * themselves: adding one costs V8 a new hidden class per request (about a kilobyte of garbage),
 * where `res.locals` is a small dictionary made for per-request values.
 */
const READING = Symbol('body read');
type Locals = Record<symbol, BodyRead | undefined>;
const readOf = (res: Response): BodyRead | undefined => (res.locals as Locals)[READING];

/**
 * Stops reading this response's body, if it is still being read: its bytes are released
 * before this returns, and `error` is answered (the connection then closes). False when its
 * body is not being read (not begun, or already in or refused).
 */
export function abortBodyRead(res: Response, error: HttpError): boolean {
  const read = readOf(res);
  if (read === undefined || read.settled) return false;
  read.settle(error);
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
  const { limitBytes } = options;
  // The reads in progress, by the streams they listen to (the request, and the inflating
  // stream of a compressed body): the listeners below are shared by every request and find
  // their read here, so a request costs one object, not a closure per event. Weak, so that a
  // read that never settles (a request dropped some way no listener hears) leaks nothing.
  const reading = new WeakMap<Readable, BodyRead>();
  function onData(this: Readable, chunk: Buffer) {
    reading.get(this)?.data(chunk);
  }
  function onEnd(this: Readable) {
    reading.get(this)?.settle();
  }
  function onError(this: Readable, error: Error) {
    reading
      .get(this)
      ?.settle(new HttpError('bad-request', 'Request body could not be read', { cause: error }));
  }
  function onClose(this: Request) {
    if (!this.complete) {
      reading.get(this)?.settle(new HttpError('bad-request', 'Request body was cut short'));
    }
  }
  const listeners: Listeners = {
    attach(read) {
      const { req, source } = read;
      reading.set(req, read);
      reading.set(source, read);
      source.on('data', onData).on('end', onEnd).on('error', onError);
      req.on('close', onClose);
    },
    detach(read) {
      const { req, source } = read;
      reading.delete(req);
      reading.delete(source);
      source.off('data', onData).off('end', onEnd).off('error', onError);
      req.off('close', onClose);
    },
  };

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

    const read = new BodyRead(options, listeners, req, next, source, probationLimit);
    (res.locals as Locals)[READING] = read;
    res.on('close', releaseAll); // 'close' comes once; 'on' spares the once-wrapper per request
    if (options.timeoutMs !== undefined) {
      const started = (res.locals.startedAt as number | undefined) ?? performance.now();
      read.deadline = setTimeout(
        tooSlow,
        Math.max(0, options.timeoutMs - (performance.now() - started)),
        read,
      );
    }
    listeners.attach(read);
    inviteBody(res);
  };
}

/** How a read starts and stops listening to its streams. */
interface Listeners {
  attach(read: BodyRead): void;
  detach(read: BodyRead): void;
}

/** One body being read: its bytes so far, what they hold of the budget, and how it ends. */
class BodyRead {
  /** The first chunk; a small body usually arrives in one, and is then the body as it is. */
  first: Buffer | undefined = undefined;
  /** Any further chunks. */
  more: Buffer[] | undefined = undefined;
  size = 0;
  /** Bytes held of the memory budget, until the answer is done. */
  reserved = 0;
  settled = false;
  deadline: NodeJS.Timeout | undefined = undefined;

  constructor(
    readonly options: RawBodyOptions,
    readonly listeners: Listeners,
    readonly req: Request,
    readonly next: NextFunction,
    readonly source: Readable,
    readonly probationLimit: number | undefined,
  ) {}

  data(chunk: Buffer): void {
    const { limitBytes, budget } = this.options;
    this.size += chunk.length;
    if (this.size > limitBytes) this.settle(tooLarge(limitBytes));
    else if (this.probationLimit !== undefined && this.size > this.probationLimit) {
      this.settle(tooLargeForProbation());
    } else if (!budget.tryReserve(chunk.length)) {
      this.settle(new HttpError('overloaded', 'Too many request bodies in memory; retry later'));
    } else {
      this.reserved += chunk.length;
      if (this.first === undefined) this.first = chunk;
      else (this.more ??= []).push(chunk);
    }
  }

  settle(error?: unknown): void {
    if (this.settled) return;
    this.settled = true;
    const { req, source } = this;
    clearTimeout(this.deadline);
    this.listeners.detach(this);
    if (error) {
      if (source !== req) source.destroy();
      req.pause();
      this.first = undefined;
      this.more = undefined;
      this.release();
      this.next(error);
      return;
    }
    req.body =
      this.more === undefined
        ? (this.first ?? Buffer.alloc(0))
        : Buffer.concat([this.first as Buffer, ...this.more], this.size);
    this.first = undefined;
    this.more = undefined;
    this.next();
  }

  release(): void {
    this.options.budget.release(this.reserved);
    this.reserved = 0;
  }
}

function releaseAll(this: Response) {
  readOf(this)?.release();
}
function tooSlow(read: BodyRead) {
  read.settle(new HttpError('request-timeout', 'Request body took too long'));
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
