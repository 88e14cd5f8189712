import { z } from 'zod';
import { count, lenientObject, text } from './lenient.ts';

/**
 * The envelope every answer carries: `status` (`Ok` or anything else), `statusDescription`,
 * `durationMs`, and on failures `errorCode` (wallets) or `errors` (reports). Read from
 * successes and failures alike, in either casing.
 */
const errorList = z
  .unknown()
  .optional()
  .transform((value) =>
    Array.isArray(value)
      ? value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)))
      : typeof value === 'string' && value !== ''
        ? [value]
        : [],
  );

const envelopeSchema = lenientObject({
  status: text,
  statusDescription: text,
  durationMs: count,
  errorCode: text,
  errors: errorList,
});

export type Envelope = z.output<typeof envelopeSchema>;

export function readEnvelope(body: unknown): Envelope {
  const parsed = envelopeSchema.safeParse(body);
  return parsed.success ? parsed.data : { errors: [] };
}

/** `Ok` in any letter case; an absent status (e.g. the token answer, a CSV report) is not a failure. */
export function isOkStatus(status: string | undefined): boolean {
  return status === undefined || status.trim().toLowerCase() === 'ok';
}
