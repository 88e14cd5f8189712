import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { RequestHandler } from 'express';
import { ReceiverError } from './errors.ts';

/**
 * Reads the exact body bytes before anything parses them (the signature covers these bytes),
 * into `req.body` as a Buffer. Reading stops as soon as the limit is passed: a declared
 * Content-Length over the limit is refused before a byte is read. A compressed body is
 * inflated and the limit applies to the inflated size, so a small bomb cannot grow past it.
 */
export function rawBody(limitBytes: number): RequestHandler {
  return (req, _res, next) => {
    const declared = Number(req.get('content-length'));
    if (declared > limitBytes) {
      next(tooLarge(limitBytes));
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
    let settled = false;
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      source.off('data', onData).off('end', onEnd).off('error', onError);
      req.off('close', onClose);
      if (error) {
        if (source !== req) source.destroy();
        req.pause();
        next(error);
        return;
      }
      req.body = Buffer.concat(chunks, size);
      next();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) settle(tooLarge(limitBytes));
      else chunks.push(chunk);
    };
    const onEnd = () => settle();
    const onError = (error: Error) =>
      settle(new ReceiverError('bad-request', 'Request body could not be read', { cause: error }));
    const onClose = () => {
      if (!req.complete) settle(new ReceiverError('bad-request', 'Request body was cut short'));
    };

    source.on('data', onData).on('end', onEnd).on('error', onError);
    req.on('close', onClose);
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
      throw new ReceiverError(
        'unsupported-media-type',
        `Content-Encoding ${encoding} not supported`,
      );
  }
}

function tooLarge(limitBytes: number): ReceiverError {
  return new ReceiverError('payload-too-large', `Body larger than ${limitBytes} bytes`);
}
