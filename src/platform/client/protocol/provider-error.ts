/**
 * The one error every provider call throws. It says what happened in the platform's own terms
 * (HTTP status, `status`, `statusDescription`, `errorCode` / `errors`) and, through `kind`,
 * whether the request may have reached the platform: a caller deciding whether a refund might
 * have happened needs to tell "refused" from "no answer".
 *
 * Messages never carry credentials: they are built from the endpoint's name and the answer only.
 */
export type ProviderErrorKind =
  /** Refused before sending: the request broke the interface's rules (`fieldErrors`). */
  | 'invalid-request'
  /** The platform answered with a non-2xx HTTP status. */
  | 'http'
  /** HTTP 2xx, but `status` was not `Ok` (the platform does this). */
  | 'status'
  /** No answer within the timeout: the request may or may not have been processed. */
  | 'timeout'
  /** The connection failed or broke: the request may or may not have been processed. */
  | 'network'
  /** An answer we cannot read (not JSON, too large, a required field missing). */
  | 'invalid-response'
  /** A sign-in was refused earlier in this process: no further sign-in is attempted. */
  | 'sign-in-refused'
  /** No credentials configured for this endpoint. */
  | 'not-configured';

export interface FieldError {
  path: string;
  message: string;
}

export interface ProviderErrorDetails {
  endpoint: string;
  kind: ProviderErrorKind;
  httpStatus?: number;
  status?: string;
  statusDescription?: string;
  errorCode?: string;
  errors?: readonly string[];
  fieldErrors?: readonly FieldError[];
  /** Attempts made (1 when not retried). */
  attempts?: number;
  cause?: unknown;
}

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly endpoint: string;
  readonly kind: ProviderErrorKind;
  readonly httpStatus: number | undefined;
  readonly status: string | undefined;
  readonly statusDescription: string | undefined;
  readonly errorCode: string | undefined;
  readonly errors: readonly string[];
  readonly fieldErrors: readonly FieldError[];
  attempts: number;
  /** The answer's `Retry-After`, in seconds, when it had one. */
  retryAfter: number | undefined;
  /**
   * True when the platform may have acted on the request although we hold no readable answer
   * that says so: no answer (timeout, broken connection), a 5xx, or a 2xx we cannot read or
   * whose `status` is not `Ok`. Sticky across a call's attempts: the transport sets it when ANY
   * attempt was in doubt, so a later 429 or 400 never turns "may have been refunded" into
   * "refused".
   */
  outcomeUnknown: boolean;
  /** For calls sent in one of two dialects: the one this error answered. */
  dialect: 'interface' | 'public' | undefined;

  constructor(details: ProviderErrorDetails) {
    super(describe(details), details.cause === undefined ? {} : { cause: details.cause });
    this.endpoint = details.endpoint;
    this.kind = details.kind;
    this.httpStatus = details.httpStatus;
    this.status = details.status;
    this.statusDescription = details.statusDescription;
    this.errorCode = details.errorCode;
    this.errors = details.errors ?? [];
    this.fieldErrors = details.fieldErrors ?? [];
    this.attempts = details.attempts ?? 1;
    this.retryAfter = undefined;
    this.outcomeUnknown = attemptMayHaveActed(details);
    this.dialect = undefined;
  }

  /** A plain object for JSON output and logs (never holds a credential). */
  toJSON(): Record<string, unknown> {
    return {
      error: this.message,
      endpoint: this.endpoint,
      kind: this.kind,
      ...(this.httpStatus !== undefined && { httpStatus: this.httpStatus }),
      ...(this.status !== undefined && { status: this.status }),
      ...(this.statusDescription !== undefined && { statusDescription: this.statusDescription }),
      ...(this.errorCode !== undefined && { errorCode: this.errorCode }),
      ...(this.errors.length > 0 && { errors: this.errors }),
      ...(this.fieldErrors.length > 0 && { fieldErrors: this.fieldErrors }),
      attempts: this.attempts,
      ...(this.outcomeUnknown && { outcomeUnknown: true }),
    };
  }
}

/**
 * Whether one attempt's failure leaves open that the platform acted: it may have, unless it
 * answered a status that refuses (4xx) or nothing was sent at all.
 */
function attemptMayHaveActed(d: Pick<ProviderErrorDetails, 'kind' | 'httpStatus'>): boolean {
  if (d.kind === 'timeout' || d.kind === 'network') return true;
  if (d.kind !== 'http' && d.kind !== 'status' && d.kind !== 'invalid-response') return false;
  const status = d.httpStatus ?? 0;
  return status >= 500 || (status >= 200 && status <= 299);
}

function describe(d: ProviderErrorDetails): string {
  const parts = [`${d.endpoint}: ${d.kind}`];
  if (d.httpStatus !== undefined) parts.push(`HTTP ${d.httpStatus}`);
  if (d.status !== undefined) parts.push(`status ${d.status}`);
  if (d.errorCode !== undefined) parts.push(`errorCode ${d.errorCode}`);
  if (d.statusDescription) parts.push(d.statusDescription);
  for (const field of d.fieldErrors ?? []) parts.push(field.message);
  for (const error of d.errors ?? []) parts.push(error);
  return parts.join('; ');
}
