import type { Request, Response } from 'express';
import { paddedJson, takeAfterAction, UNREADABLE_HTML } from './after-action.ts';

/**
 * The platform's envelope (durationMs, status, statusDescription) and its three error shapes:
 * `errorCode` on the wallet endpoints, an `errors` array on the report, neither elsewhere. Which
 * one applies follows from the path, so middleware (authentication, faults) answers right too.
 * Every answer of a platform endpoint goes out through `deliver`, where an armed after-action
 * fault replaces it (after-action.ts).
 */
const OK_DESCRIPTION = 'Operation completed successfully';

const STATUS_WORDS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  404: 'NotFound',
  406: 'NotAcceptable',
  408: 'RequestTimeout',
  413: 'PayloadTooLarge',
  429: 'TooManyRequests',
  500: 'InternalServerError',
};
const ERROR_CODES: Record<number, string> = {
  400: 'ValidationError',
  401: 'Unauthorized',
  500: 'InternalServerError',
};

/** `app.locals` key: true when 400s of platform endpoints carry no body (`--bare-400`). */
export const BARE_400 = 'sandboxBare400';

export function markStart(_req: Request, res: Response, next: () => void): void {
  res.locals.startedAt = performance.now();
  next();
}

function durationMs(res: Response): number {
  const started = res.locals.startedAt as number | undefined;
  return started === undefined ? 0 : Math.round(performance.now() - started);
}

function envelope(res: Response, status = 'Ok', description = OK_DESCRIPTION) {
  return { durationMs: durationMs(res), status, statusDescription: description };
}

/**
 * The envelope and `body`. `raw` members are JSON text written as they are, for values a
 * double cannot carry (a 19-digit webhookId as a JSON integer).
 */
export function sendOk(res: Response, body: object = {}, raw: Record<string, string> = {}): void {
  const json = { ...envelope(res), ...body };
  const members = Object.entries(raw).map(([name, value]) => `${JSON.stringify(name)}:${value}`);
  const text = JSON.stringify(json);
  deliver(res, 200, 'application/json', {
    text: members.length === 0 ? text : `${text.slice(0, -1)},${members.join(',')}}`,
    json,
  });
}

export interface ErrorOptions {
  /** Field-level messages: the report's `errors`; joined into the description elsewhere. */
  problems?: readonly string[];
  /** A status word other than the usual one for the HTTP status (e.g. `CustomerIsOnHold`). */
  status?: string;
}

export function sendError(
  res: Response,
  httpStatus: number,
  description: string,
  options: ErrorOptions = {},
): void {
  const json = errorBody(res, httpStatus, description, options);
  // A refusal carries nothing out: an after-action fault armed for this request waits for the
  // next one, so "the platform acted, then the answer was lost" means exactly that.
  takeAfterAction(res)?.unused();
  if (httpStatus === 400 && res.app.locals[BARE_400] === true && !isControl(res)) {
    res.status(400).end();
    return;
  }
  res.status(httpStatus).type('application/json').send(JSON.stringify(json));
}

/** A text answer (the report's CSV, the public key): replaced by an after-action fault too. */
export function sendText(res: Response, contentType: string, text: string): void {
  deliver(res, 200, contentType, { text });
}

function errorBody(
  res: Response,
  httpStatus: number,
  description: string,
  options: ErrorOptions,
): Record<string, unknown> {
  // The full path, also when answered from inside a mounted router.
  const path = (res.req.originalUrl || res.req.url).split('?')[0] ?? '';
  const problems = options.problems ?? [];
  const status =
    options.status ?? STATUS_WORDS[httpStatus] ?? (httpStatus < 500 ? 'Fail' : 'Error');
  const body: Record<string, unknown> = envelope(
    res,
    status,
    (problems.length > 0 && !isReport(path)
      ? `${description}: ${problems.join('; ')}`
      : description
    ).slice(0, 500),
  );
  if (isWallet(path)) body.errorCode = ERROR_CODES[httpStatus] ?? status.replace(/\W/g, '');
  if (isReport(path) && problems.length > 0) body.errors = [...problems];
  return body;
}

const isControl = (res: Response) =>
  (res.req.originalUrl || res.req.url).toLowerCase().startsWith('/sandbox/');
const isWallet = (path: string) => path.toLowerCase().startsWith('/mwallet/');
const isReport = (path: string) => path.toLowerCase().startsWith('/paytoreceivables/');

/** Writes the answer, or, when an after-action fault is armed for it, what the fault says. */
function deliver(
  res: Response,
  httpStatus: number,
  contentType: string,
  answer: { text: string; json?: Record<string, unknown> },
): void {
  const fault = takeAfterAction(res);
  if (!fault) {
    // Bytes, not text, for octet-stream: Express would add a charset, which the platform's key
    // endpoint does not send.
    const binary = contentType === 'application/octet-stream';
    res
      .status(httpStatus)
      .type(contentType)
      .send(binary ? Buffer.from(answer.text, 'utf8') : answer.text);
    return;
  }
  const write = (status: number, type: string, text: string) =>
    void res.status(status).type(type).send(text);
  switch (fault.answer) {
    case 'status': {
      const description = 'Sandbox fault: after-action (the request was carried out)';
      return write(
        fault.status,
        'application/json',
        JSON.stringify(errorBody(res, fault.status, description, {})),
      );
    }
    case 'hang':
      return fault.hold(res);
    case 'drop':
      return void res.socket?.destroy();
    case 'oversized':
      return write(200, 'application/json', paddedJson(answer.json ?? envelope(res)));
    case 'unreadable':
      return write(200, 'text/html', UNREADABLE_HTML);
    case 'not-ok':
      return write(
        200,
        'application/json',
        JSON.stringify(envelope(res, 'Error', 'Unexpected error')),
      );
  }
}
