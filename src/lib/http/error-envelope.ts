import type { Response } from 'express';

/**
 * The answer shape of every listener of the kit, the platform's own (the receiver answers the
 * platform in it; the feed's listener and health routes use it too): status word, description,
 * duration; on a 400, the problems found (`{path, message}` each):
 * `{"status":"Ok","statusDescription":"...","durationMs":3}`, and `"errors":[...]` last.
 */

/**
 * Told of every answer sent through sendEnvelope, when the app put one in
 * `res.locals.observeAnswer` (the receiver records its latency histogram there). Made once per
 * app, never per request.
 */
export type AnswerObserver = (path: string, httpStatus: number, elapsedSeconds: number) => void;

const STATUS_WORDS: Record<number, string> = {
  200: 'Ok',
  400: 'BadRequest',
  401: 'Unauthorised',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  408: 'RequestTimeout',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

export function sendEnvelope(
  res: Response,
  httpStatus: number,
  description: string,
  errors?: readonly object[],
): void {
  const started = res.locals.startedAt as number | undefined;
  const elapsedMs = started === undefined ? 0 : performance.now() - started;
  // The Envelope as JSON.stringify writes it, field by field: no object to build and walk for
  // every answer, every delivery gets one.
  let text =
    `{"status":${STATUS_JSON[httpStatus] ?? '"Error"'},` +
    `"statusDescription":${JSON.stringify(description)},"durationMs":${Math.round(elapsedMs)}`;
  if (errors) text += `,"errors":${JSON.stringify(errors)}`;
  text += '}';
  // Written directly: Express's res.json would look up the content type and charset again for
  // every answer.
  res.writeHead(httpStatus, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
  // Every answer of the app goes through here, so latency is recorded here rather than by a
  // 'finish' listener on every response.
  (res.locals.observeAnswer as AnswerObserver | undefined)?.(
    res.req.path,
    httpStatus,
    elapsedMs / 1000,
  );
}

/** Each status word as JSON text. */
const STATUS_JSON: Record<number, string> = Object.fromEntries(
  Object.entries(STATUS_WORDS).map(([status, word]) => [status, JSON.stringify(word)]),
);
