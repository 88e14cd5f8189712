/**
 * A small JSON client for the sandbox over real HTTP, used by the demo and the tests. Each call
 * has a timeout, and the answer body is parsed when it is JSON.
 */
export interface Answer {
  status: number;
  // The sandbox's answers are JSON objects; tests and the demo read fields off them.
  body: Record<string, unknown> & { status?: string };
  text: string;
  headers: Headers;
}

interface CallOptions {
  body?: unknown;
  /** `api-key` (default): Basic API key with an empty password; `none`; or a full header value. */
  auth?: 'api-key' | 'none' | string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export type Call = (method: string, path: string, options?: CallOptions) => Promise<Answer>;

export function basicApiKey(apiKey: string): string {
  return `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`;
}

export function sandboxClient(baseUrl: string, apiKey: string): Call {
  return async (method, path, options = {}) => {
    const auth = options.auth ?? 'api-key';
    const headers: Record<string, string> = {
      ...(options.body !== undefined && { 'Content-Type': 'application/json' }),
      ...(auth === 'api-key'
        ? { Authorization: basicApiKey(apiKey) }
        : auth === 'none'
          ? {}
          : { Authorization: auth }),
      ...options.headers,
    };
    const response = await fetch(new URL(path, baseUrl), {
      method,
      headers,
      ...(options.body !== undefined && {
        body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
      }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
    });
    const text = await response.text();
    let body: Answer['body'] = {};
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        body = parsed as Answer['body'];
    } catch {
      // Not JSON (the CSV report, the public key): the text is there.
    }
    return { status: response.status, body, text, headers: response.headers };
  };
}
