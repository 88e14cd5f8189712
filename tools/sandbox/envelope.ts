import type { Request, Response } from 'express';

/**
 * The platform's envelope (durationMs, status, statusDescription) and its three error shapes:
 * `errorCode` on the wallet endpoints, an `errors` array on the report, neither elsewhere. Which
 * one applies follows from the path, so middleware (authentication, faults) answers right too.
 */
export const OK_DESCRIPTION = 'Operation completed successfully';

const STATUS_WORDS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  404: 'NotFound',
  413: 'PayloadTooLarge',
  500: 'InternalServerError',
};
const ERROR_CODES: Record<number, string> = {
  400: 'ValidationError',
  401: 'Unauthorized',
  500: 'InternalServerError',
};

export function markStart(_req: Request, res: Response, next: () => void): void {
  res.locals.startedAt = performance.now();
  next();
}

function durationMs(res: Response): number {
  const started = res.locals.startedAt as number | undefined;
  return started === undefined ? 0 : Math.round(performance.now() - started);
}

export function sendOk(res: Response, body: object = {}): void {
  res.status(200).json({
    durationMs: durationMs(res),
    status: 'Ok',
    statusDescription: OK_DESCRIPTION,
    ...body,
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
  // The full path, also when answered from inside a mounted router.
  const path = (res.req.originalUrl || res.req.url).split('?')[0] ?? '';
  const problems = options.problems ?? [];
  const status =
    options.status ?? STATUS_WORDS[httpStatus] ?? (httpStatus < 500 ? 'Fail' : 'Error');
  const body: Record<string, unknown> = {
    durationMs: durationMs(res),
    status,
    statusDescription: (problems.length > 0 && !isReport(path)
      ? `${description}: ${problems.join('; ')}`
      : description
    ).slice(0, 500),
  };
  if (isWallet(path)) body.errorCode = ERROR_CODES[httpStatus] ?? status.replace(/\W/g, '');
  if (isReport(path) && problems.length > 0) body.errors = [...problems];
  res.status(httpStatus).json(body);
}

const isWallet = (path: string) => path.toLowerCase().startsWith('/mwallet/');
const isReport = (path: string) => path.toLowerCase().startsWith('/paytoreceivables/');
