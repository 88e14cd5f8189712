import type { Response } from 'express';
import type { FieldProblem } from '../events/types.ts';

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
  const body: Envelope = {
    status: STATUS_WORDS[httpStatus] ?? 'Error',
    statusDescription: description,
    durationMs: started === undefined ? 0 : Math.round(performance.now() - started),
    ...(errors && { errors: [...errors] }),
  };
  res.status(httpStatus).json(body);
}
