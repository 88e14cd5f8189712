/**
 * Outbound HTTP, the one home for it: one call, bounded in time and size, on Node's fetch.
 *
 * - `timeoutMs` is a deadline for the whole exchange: connecting, sending, the headers AND the
 *   body (a peer that sends headers and then stalls still fails in time).
 * - `maxResponseBytes` is the answer's byte budget: a declared Content-Length over it fails
 *   before the body is read; a body that streams past it is cut off there. Either way `too-large`,
 *   unless `keepPrefix` asks for the first `maxResponseBytes` bytes instead (an excerpt to log).
 * - Redirects are not followed unless asked: a 3xx is the answer (a redirect could carry the
 *   request's credentials, or hand back someone else's content, elsewhere).
 * - `signal` abandons the call early (a stopping service); `fetch` replaces Node's for tests.
 *
 * Failures are `HttpCallError`s whose `kind` says what callers decide on: no answer in time
 * (`timeout`), abandoned (`aborted`), the connection refused (`refused`) or dropped (`reset`:
 * the request may have been acted on), other network failures (`network`), an answer over the
 * budget (`too-large`), and a status the caller does not `accept` (`status`, with the body as
 * far as it could be read within the budget). By default every status is an answer.
 * `describeError` (src/lib/describe-error.ts) renders any of them, causes included, for logs.
 */
export type HttpFailure =
  'timeout' | 'aborted' | 'refused' | 'reset' | 'network' | 'too-large' | 'status';

export interface HttpRequest {
  url: string | URL;
  /** Default GET. */
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The deadline for the whole exchange, body included. */
  timeoutMs: number;
  /** The answer's byte budget. */
  maxResponseBytes: number;
  /** The body is not wanted: it is cancelled unread (the answer's `body` is empty). */
  discardBody?: boolean;
  /** A body over the budget is not a failure: its first `maxResponseBytes` bytes are the body. */
  keepPrefix?: boolean;
  /** The statuses that are answers; any other fails as `status`. Default: all of them. */
  accept?: (status: number) => boolean;
  /** Default false: a 3xx is the answer. */
  followRedirects?: boolean;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
}

export interface HttpCallErrorDetails {
  /** The answer's status (`status`, and `too-large` once headers came). */
  status?: number;
  /** `status`: the answer's body as text, when it could be read within the budget. */
  body?: string;
  /** `too-large`: the Content-Length the answer declared, when that was over the budget. */
  declaredBytes?: number;
  /** The system's code for a connection failure (ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET...). */
  code?: string;
  cause?: unknown;
}

export class HttpCallError extends Error {
  override readonly name = 'HttpCallError';
  readonly status: number | undefined;
  readonly body: string | undefined;
  readonly declaredBytes: number | undefined;
  readonly code: string | undefined;

  constructor(
    readonly kind: HttpFailure,
    message: string,
    details: HttpCallErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? {} : { cause: details.cause });
    this.status = details.status;
    this.body = details.body;
    this.declaredBytes = details.declaredBytes;
    this.code = details.code;
  }
}

export async function httpCall(request: HttpRequest): Promise<HttpAnswer> {
  const deadline = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
  let response: Response;
  try {
    response = await (request.fetch ?? fetch)(request.url, {
      method: request.method ?? 'GET',
      redirect: request.followRedirects ? 'follow' : 'manual',
      signal,
      ...(request.headers !== undefined && { headers: request.headers }),
      ...(request.body !== undefined && { body: request.body }),
    });
  } catch (error) {
    throw classify(error, request, deadline);
  }
  const { status, headers } = response;
  if (request.accept && !request.accept(status)) {
    const body = request.discardBody
      ? await discard(response)
      : await readCapped(response, request).then(
          (bytes) => bytes.toString('utf8'),
          () => undefined,
        );
    throw new HttpCallError('status', `answered HTTP ${status}`, {
      status,
      ...(body !== undefined && { body }),
    });
  }
  if (request.discardBody) {
    await discard(response);
    return { status, headers, body: Buffer.alloc(0) };
  }
  try {
    return { status, headers, body: await readCapped(response, request) };
  } catch (error) {
    throw classify(error, request, deadline);
  }
}

async function discard(response: Response): Promise<undefined> {
  await response.body?.cancel().catch(() => {});
  return undefined;
}

async function readCapped(
  response: Response,
  { maxResponseBytes: maxBytes, keepPrefix = false }: HttpRequest,
): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes && !keepPrefix) {
    await discard(response);
    throw new HttpCallError(
      'too-large',
      `answer declared ${declared} bytes; the limit is ${maxBytes}`,
      { status: response.status, declaredBytes: declared },
    );
  }
  if (response.body === null) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes && keepPrefix) {
      await reader.cancel().catch(() => {});
      chunks.push(value.subarray(0, value.byteLength - (total - maxBytes)));
      break;
    }
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new HttpCallError('too-large', `answer sent more than ${maxBytes} bytes`, {
        status: response.status,
      });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

const REFUSED = new Set(['ECONNREFUSED']);
const RESET = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

function classify(error: unknown, request: HttpRequest, deadline: AbortSignal): HttpCallError {
  if (error instanceof HttpCallError) return error;
  if (deadline.aborted) {
    return new HttpCallError('timeout', `no answer within ${request.timeoutMs} ms`, {
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  if (request.signal?.aborted) return new HttpCallError('aborted', message, { cause: error });
  // fetch's own error says "fetch failed" (or "terminated", mid-body); the reason is its cause.
  // The message and that cause are kept as they are, so describeError reads as fetch's would.
  const cause = error instanceof Error ? error.cause : undefined;
  const code = systemCode(error);
  const kind =
    code === undefined
      ? 'network'
      : REFUSED.has(code)
        ? 'refused'
        : RESET.has(code)
          ? 'reset'
          : 'network';
  return new HttpCallError(kind, message, {
    ...(code !== undefined && { code }),
    ...(cause !== undefined && { cause }),
  });
}

/** The first `code` along an error's causes (an AggregateError's: its first error's). */
function systemCode(error: unknown): string | undefined {
  let current = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth += 1) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string') return code;
    current = current instanceof AggregateError ? (current.errors[0] as unknown) : current.cause;
  }
  return undefined;
}
