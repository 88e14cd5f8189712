import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../logger.ts';
import { closeConnectionAfterAnswer } from './close-after-answer.ts';
import { sendEnvelope } from './error-envelope.ts';

export type HttpErrorCode =
  | 'not-found'
  | 'bad-request'
  | 'request-timeout'
  | 'payload-too-large'
  | 'unsupported-media-type'
  | 'overloaded'
  | 'internal';

const STATUS: Record<HttpErrorCode, number> = {
  'not-found': 404,
  'bad-request': 400,
  'request-timeout': 408,
  'payload-too-large': 413,
  'unsupported-media-type': 415,
  overloaded: 503,
  internal: 500,
};

/** Answered before the body was read to its end: the rest of it is never read. */
const BODY_LEFT_UNREAD = new Set<HttpErrorCode>([
  'payload-too-large',
  'request-timeout',
  'overloaded',
]);

/** The one error type the HTTP layer throws; its message is safe to show a caller. */
export class HttpError extends Error {
  readonly status: number;
  constructor(
    readonly code: HttpErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HttpError';
    this.status = STATUS[code];
  }
}

export const notFound: RequestHandler = (_req, res) => {
  sendEnvelope(res, 404, 'No such route');
};

export interface ErrorHandlerOptions {
  /** Told of each request refused as overloaded (a budget doing its job), e.g. to count it. */
  onOverloaded?: () => void;
}

/** Maps errors to the envelope. A 5xx body never carries internals: the log does. */
export function errorHandler(
  logger: Logger,
  options: ErrorHandlerOptions = {},
): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const known = error instanceof HttpError ? error : undefined;
    // Express and its parsers raise client errors with a 4xx status (e.g. a path whose
    // percent-escapes do not decode): those stay 4xx, with a generic description.
    const status = known?.status ?? clientErrorStatus(error) ?? 500;
    const log = (res.locals.log as Logger | undefined) ?? logger;
    const requestId = res.locals.requestId as string | undefined;
    if (known?.code === 'overloaded') {
      // A budget doing its job, not a fault: a warning (alert on the counter), no stack.
      log.warn({ requestId, path: req.path, status }, known.message);
      options.onOverloaded?.();
      res.setHeader('Retry-After', '1');
    } else if (status >= 500)
      log.error({ err: error, requestId, path: req.path }, 'request failed');
    else
      log.info(
        { code: known?.code, requestId, path: req.path, status },
        known?.message ?? 'request refused',
      );

    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (known && BODY_LEFT_UNREAD.has(known.code)) closeConnectionAfterAnswer(req, res);
    const description =
      known && status < 500 ? known.message : status < 500 ? 'Bad request' : 'Internal error';
    sendEnvelope(res, status, description);
  };
}

function clientErrorStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const candidate = typeof status === 'number' ? status : statusCode;
  return typeof candidate === 'number' && candidate >= 400 && candidate < 500
    ? candidate
    : undefined;
}
