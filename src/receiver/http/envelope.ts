import type { Response } from 'express';
import type { FieldProblem } from '../events/types.ts';
import type { Metrics } from './metrics.ts';

/** The platform's own answer shape: status word, description, duration; problems on a 400. */
export interface Envelope {
  status: string;
  statusDescription: string;
  durationMs: number;
  errors?: FieldProblem[];
}

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
  errors?: readonly FieldProblem[],
): void {
  const started = res.locals.startedAt as number | undefined;
  const elapsedMs = started === undefined ? 0 : performance.now() - started;
  const body: Envelope = {
    status: STATUS_WORDS[httpStatus] ?? 'Error',
    statusDescription: description,
    durationMs: Math.round(elapsedMs),
    ...(errors && { errors: [...errors] }),
  };
  // Written directly: Express's res.json would look up the content type and charset again for
  // every answer, and every delivery gets one.
  const text = JSON.stringify(body);
  res.writeHead(httpStatus, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
  // Every answer of the app goes through here, so latency is recorded here rather than by a
  // 'finish' listener on every response.
  (res.locals.metrics as Metrics | undefined)?.requestDuration
    .labels(routeKind(res.req.path), String(httpStatus))
    .observe(elapsedMs / 1000);
}

/** A fixed set of label values: a URL never mints a new series. */
function routeKind(path: string): string {
  if (path.startsWith('/webhooks/')) return 'webhook';
  if (path === '/healthz' || path === '/readyz') return path.slice(1);
  return 'other';
}
