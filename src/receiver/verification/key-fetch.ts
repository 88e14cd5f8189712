import type { KeyObject } from 'node:crypto';
import { HttpCallError, httpCall } from '../../lib/http-client.ts';
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
  /** Replaces Node's fetch (tests). */
  fetch?: typeof fetch;
  /** Aborts the fetch early, e.g. when the key source is stopped. */
  signal?: AbortSignal;
}

class KeyFetchError extends Error {
  override readonly name = 'KeyFetchError';
}

export async function fetchSigningKey(url: string, options: KeyFetchOptions): Promise<KeyObject> {
  let body: Buffer;
  try {
    ({ body } = await httpCall({
      url,
      headers: { accept: 'application/octet-stream, text/plain;q=0.9, */*;q=0.1' },
      timeoutMs: options.timeoutMs,
      maxResponseBytes: options.maxBytes,
      accept: (status) => status === 200,
      ...(options.signal && { signal: options.signal }),
      ...(options.fetch && { fetch: options.fetch }),
    }));
  } catch (error) {
    throw inKeyTerms(error, options);
  }
  return parsePublicKey(body.toString('utf8'));
}

function inKeyTerms(error: unknown, options: KeyFetchOptions): unknown {
  if (!(error instanceof HttpCallError)) return error;
  switch (error.kind) {
    case 'timeout':
      return new KeyFetchError(`key fetch timed out after ${options.timeoutMs} ms`, {
        cause: error,
      });
    case 'status':
      return new KeyFetchError(`key endpoint answered HTTP ${error.status}`);
    case 'too-large':
      return new KeyFetchError(
        error.declaredBytes === undefined
          ? `key endpoint sent more than ${options.maxBytes} bytes`
          : `key endpoint declared ${error.declaredBytes} bytes; the limit is ${options.maxBytes}`,
      );
    default:
      return error;
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
