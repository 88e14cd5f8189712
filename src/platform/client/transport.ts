import { describeError } from '../../lib/describe-error.ts';
import { HttpCallError, httpCall, type HttpAnswer } from '../../lib/http-client.ts';
import { parseJsonKeepingLongIntegers } from '../../lib/long-integer-json.ts';
import type { Logger } from '../../lib/logger.ts';
import { basicAuthorization, bearerAuthorization } from './auth.ts';
import type { Endpoint } from './endpoints.ts';
import { ProviderError } from './protocol/provider-error.ts';
import { isOkStatus, readEnvelope, type Envelope } from './responses/envelope.ts';
import { isTransient, retryAfterSeconds, retryDelayMs, type RetryPolicy } from './retry-policy.ts';
import type { TokenCache } from './token-cache.ts';

/**
 * Sends one logical call: authorisation per the endpoint's scheme, a timeout on each attempt
 * (covering connect, headers and body; no redirects: one could carry our credentials elsewhere;
 * the answer read up to the endpoint's cap),
 * retries with backoff and jitter when the endpoint allows, one token renewal on a 401, and the
 * answer judged by HTTP status AND envelope `status` (the platform answers some failures with
 * HTTP 200). Logs name the endpoint, attempt and outcome; never a header, body or credential.
 */
export interface TransportOptions {
  baseUrl: string;
  authUrl: string;
  apiKey: string | undefined;
  mAccount: string | undefined;
  timeoutMs: number;
  retry: RetryPolicy;
  fetch: typeof fetch;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  logger?: Logger;
  /** Needed only for `bearer` endpoints. */
  tokens?: TokenCache;
}

interface CallInput {
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** A non-`Ok` status that this endpoint uses for success (e.g. a PayID state). */
  okStatus?: (status: string) => boolean;
}

export interface CallResult {
  /** Parsed JSON (long integers as text), or undefined when the answer is not JSON. */
  json: unknown;
  text: string;
  envelope: Envelope;
  httpStatus: number;
  /** HTTP attempts this call took, the answered one included (a refund row counts them all). */
  attempts: number;
}

export interface Transport {
  call(endpoint: Endpoint, input: CallInput): Promise<CallResult>;
}

export function createTransport(options: TransportOptions): Transport {
  const { logger, retry } = options;

  async function authorization(endpoint: Endpoint): Promise<{ header: string; token?: string }> {
    const missing = (what: string) =>
      new ProviderError({
        endpoint: endpoint.name,
        kind: 'not-configured',
        statusDescription: `${what} not configured`,
      });
    if (!options.apiKey) throw missing('PROVIDER_API_KEY');
    if (endpoint.auth === 'api-key') return { header: basicAuthorization(options.apiKey, '') };
    if (endpoint.auth === 'sign-in') {
      if (!options.mAccount) throw missing('PROVIDER_MACCOUNT');
      return { header: basicAuthorization(options.mAccount, options.apiKey) };
    }
    if (!options.tokens) throw missing('bearer token source');
    const token = await options.tokens.token();
    return { header: bearerAuthorization(token), token };
  }

  /** One attempt. Every HTTP status is returned: what a status means is judge()'s to say. */
  async function exchange(endpoint: Endpoint, input: CallInput, header: string) {
    const url = new URL(input.path, endpoint.host === 'auth' ? options.authUrl : options.baseUrl);
    for (const [name, value] of Object.entries(input.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, value);
    }
    const headers: Record<string, string> = {
      accept: endpoint.accept,
      authorization: header,
      'user-agent': 'monoova-webhook-receiver',
    };
    if (endpoint.method === 'POST') headers['content-type'] = 'application/json';
    try {
      return await httpCall({
        url,
        method: endpoint.method,
        headers,
        timeoutMs: options.timeoutMs,
        maxResponseBytes: endpoint.maxResponseBytes,
        fetch: options.fetch,
        ...(input.body !== undefined && { body: JSON.stringify(input.body) }),
      });
    } catch (error) {
      throw inProviderTerms(endpoint, error, options.timeoutMs);
    }
  }

  return {
    async call(endpoint, input) {
      let renewed = false;
      // Doubt is sticky: once an attempt may have reached the platform and been acted on, no
      // later answer (a 429, a 400 to the retry) can prove that nothing happened.
      let mayHaveActed = false;
      for (let attempt = 1; ; attempt += 1) {
        const started = Date.now();
        let auth: { header: string; token?: string } | undefined;
        // A token held before this attempt may have gone stale; one just issued has not.
        const heldBefore = endpoint.auth === 'bearer' ? options.tokens?.peek() : undefined;
        try {
          auth = await authorization(endpoint);
          const answer = await exchange(endpoint, input, auth.header);
          const result = judge(endpoint, input, answer);
          logger?.debug(
            {
              endpoint: endpoint.name,
              attempt,
              httpStatus: answer.status,
              ms: Date.now() - started,
            },
            'provider call answered',
          );
          return { ...result, attempts: attempt };
        } catch (error) {
          if (!(error instanceof ProviderError)) throw error;
          error.attempts = attempt;
          mayHaveActed ||= error.outcomeUnknown;
          error.outcomeUnknown = mayHaveActed;
          const rejectedToken = endpoint.auth === 'bearer' && error.httpStatus === 401;
          if (rejectedToken && !renewed && auth?.token !== undefined) {
            options.tokens?.reject(auth.token);
            // A token can be revoked or expire early: renew once. A token signed in for this
            // very attempt is not stale: signing in again would only add a failed sign-in.
            if (heldBefore === auth.token) {
              renewed = true;
              logger?.info({ endpoint: endpoint.name }, 'bearer token refused; renewing once');
              continue;
            }
          }
          const attemptsAllowed = retry.maxAttempts + (renewed ? 1 : 0);
          if (!endpoint.retry || !isTransient(error) || attempt >= attemptsAllowed) throw error;
          const waitMs = retryDelayMs(retry, attempt, options.random, error.retryAfter);
          logger?.warn(
            {
              endpoint: endpoint.name,
              attempt,
              kind: error.kind,
              httpStatus: error.httpStatus,
              waitMs,
            },
            'provider call failed; retrying',
          );
          await options.sleep(waitMs);
        }
      }
    },
  };
}

/** No answer (`timeout`, `network`) or one over the cap (`invalid-response`). */
function inProviderTerms(endpoint: Endpoint, error: unknown, timeoutMs: number): ProviderError {
  const tooLarge = error instanceof HttpCallError && error.kind === 'too-large';
  const kind = error instanceof HttpCallError && error.kind === 'timeout' ? 'timeout' : 'network';
  if (tooLarge) {
    return new ProviderError({
      endpoint: endpoint.name,
      kind: 'invalid-response',
      ...(error.status !== undefined && { httpStatus: error.status }),
      statusDescription: `answer larger than ${endpoint.maxResponseBytes} bytes`,
    });
  }
  return new ProviderError({
    endpoint: endpoint.name,
    kind,
    statusDescription:
      kind === 'timeout' ? `no answer within ${timeoutMs} ms` : describeError(error),
    cause: error,
  });
}

/**
 * Reads the answer: JSON when it is JSON, the envelope from it, and failure by HTTP status, by
 * envelope `status`, or by a 2xx that is not the shape this endpoint answers with.
 */
function judge(
  endpoint: Endpoint,
  input: CallInput,
  answer: HttpAnswer,
): Omit<CallResult, 'attempts'> {
  const text = answer.body.toString('utf8');
  const json = readJson(text);
  const envelope = readEnvelope(json);
  const details = {
    endpoint: endpoint.name,
    httpStatus: answer.status,
    ...(envelope.status !== undefined && { status: envelope.status }),
    ...(envelope.statusDescription !== undefined && {
      statusDescription: envelope.statusDescription,
    }),
    ...(envelope.errorCode !== undefined && { errorCode: envelope.errorCode }),
    errors: envelope.errors,
  };
  if (answer.status < 200 || answer.status > 299) {
    const error = new ProviderError({ ...details, kind: 'http' });
    error.retryAfter = retryAfterSeconds(answer.headers);
    throw error;
  }
  const unreadable = unreadableReason(endpoint, json, envelope, answer);
  if (unreadable !== undefined) {
    throw new ProviderError({
      endpoint: endpoint.name,
      kind: 'invalid-response',
      httpStatus: answer.status,
      statusDescription: unreadable,
    });
  }
  const status = envelope.status;
  if (status !== undefined && !isOkStatus(status) && !input.okStatus?.(status)) {
    throw new ProviderError({ ...details, kind: 'status' });
  }
  return { json, text, envelope, httpStatus: answer.status };
}

function unreadableReason(
  endpoint: Endpoint,
  json: unknown,
  envelope: Envelope,
  answer: HttpAnswer,
): string | undefined {
  const isObject = json !== null && typeof json === 'object' && !Array.isArray(json);
  const type = answer.headers.get('content-type')?.split(';')[0]?.trim() || 'no content type';
  if (endpoint.answer === 'report') {
    if (isObject || (json === undefined && !/html|xml/i.test(type))) return undefined;
    return `a ${type} answer that is neither the report's JSON nor CSV text`;
  }
  if (!isObject) return `a ${type} answer that is not the platform's JSON`;
  if (endpoint.answer === 'envelope' && envelope.status === undefined) {
    return "a JSON answer without the platform's status envelope";
  }
  return undefined;
}

function readJson(text: string): unknown {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return parseJsonKeepingLongIntegers(trimmed);
  } catch {
    return undefined;
  }
}
