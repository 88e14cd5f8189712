import { describeError } from '../../receiver/index.ts';
import { ProviderError } from './protocol/provider-error.ts';

/**
 * One HTTP exchange with the platform, bounded in time and size: a timeout covering connect,
 * headers and body; no redirects (a redirect could carry our credentials elsewhere); the body
 * read up to a cap. Failures before an answer become `timeout` / `network` ProviderErrors;
 * every HTTP status is returned, not thrown: deciding what a status means is the caller's job.
 */
export interface HttpRequest {
  endpoint: string;
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxResponseBytes: number;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export async function httpCall(fetchImpl: typeof fetch, request: HttpRequest): Promise<HttpAnswer> {
  const signal = AbortSignal.timeout(request.timeoutMs);
  try {
    const response = await fetchImpl(request.url, {
      method: request.method,
      headers: request.headers,
      redirect: 'manual',
      signal,
      ...(request.body !== undefined && { body: request.body }),
    });
    const text = await readCapped(response, request.maxResponseBytes, request.endpoint);
    return { status: response.status, headers: response.headers, text };
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    const kind = signal.aborted ? 'timeout' : 'network';
    throw new ProviderError({
      endpoint: request.endpoint,
      kind,
      statusDescription:
        kind === 'timeout' ? `no answer within ${request.timeoutMs} ms` : describeError(error),
      cause: error,
    });
  }
}

async function readCapped(response: Response, maxBytes: number, endpoint: string): Promise<string> {
  const tooLarge = () =>
    new ProviderError({
      endpoint,
      kind: 'invalid-response',
      httpStatus: response.status,
      statusDescription: `answer larger than ${maxBytes} bytes`,
    });
  if (Number(response.headers.get('content-length')) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      await response.body?.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
