import type { KeyObject } from 'node:crypto';
import { parsePublicKey } from './public-key.ts';

/**
 * One GET of the platform's public-key endpoint. The endpoint is unauthenticated, so everything
 * about the request is locked down instead: no redirects (a redirect could hand us someone
 * else's key), a timeout covering headers and body alike, and a cap on the body, which is a
 * ~540-character hex string in practice.
 */

export const DEFAULT_MAX_KEY_BYTES = 64 * 1024;

export interface KeyFetchOptions {
  timeoutMs: number;
  maxBytes: number;
  fetchImpl: typeof fetch;
  /** Aborts the fetch early, e.g. when the key source is stopped. */
  signal?: AbortSignal;
}

export class KeyFetchError extends Error {
  override readonly name = 'KeyFetchError';
}

export async function fetchSigningKey(url: string, options: KeyFetchOptions): Promise<KeyObject> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  try {
    const response = await options.fetchImpl(url, {
      method: 'GET',
      redirect: 'error',
      signal,
      headers: { accept: 'application/octet-stream, text/plain;q=0.9, */*;q=0.1' },
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new KeyFetchError(`key endpoint answered HTTP ${response.status}`);
    }
    const body = await readCapped(response, options.maxBytes);
    return await parsePublicKey(body.toString('utf8'));
  } catch (error) {
    if (timeout.aborted) {
      throw new KeyFetchError(`key fetch timed out after ${options.timeoutMs} ms`, {
        cause: error,
      });
    }
    throw error;
  }
}

/** Throws unless the URL is https (or http, for tests against a local server) and has no credentials. */
export function checkKeyUrl(text: string, allowHttp: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('signing key URL is not a valid URL');
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) {
    throw new Error(`signing key URL must use https (got ${url.protocol})`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new Error('signing key URL must not carry credentials: the endpoint needs none');
  }
  return url.href;
}

/** An error's message and its causes': fetch's own say "fetch failed" with the reason inside. */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current !== undefined && depth < 4; depth += 1) {
    parts.push(current instanceof Error ? current.message : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': ');
}

async function readCapped(response: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new KeyFetchError(`key endpoint declared ${declared} bytes; the limit is ${maxBytes}`);
  }
  if (response.body === null) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new KeyFetchError(`key endpoint sent more than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
