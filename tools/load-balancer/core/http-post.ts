import http from 'node:http';

/** What one attempt got: an HTTP answer, or a network error code. */
export interface Answer {
  status?: number;
  error?: string;
  body: string;
  /** nginx's X-Upstream: the instance(s) that handled it ("a, b" when nginx tried both). */
  upstream?: string;
  requestId?: string;
  startedAt: number;
  endedAt: number;
}

export interface PostOptions {
  url: URL;
  headers: Record<string, string>;
  body: Buffer;
  agent: http.Agent;
  timeoutMs: number;
}

/**
 * The sender's side of the loopback: requests leave from 127.0.0.2, so the receivers can only
 * learn that address from nginx's X-Forwarded-For (nginx itself connects from 127.0.0.1).
 */
export const SENDER_ADDRESS = '127.0.0.2';

export function post(o: PostOptions): Promise<Answer> {
  const startedAt = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: Omit<Answer, 'startedAt' | 'endedAt'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...answer, startedAt, endedAt: performance.now() });
    };
    const req = http.request(
      o.url,
      {
        method: 'POST',
        agent: o.agent,
        localAddress: SENDER_ADDRESS,
        headers: { ...o.headers, 'Content-Length': String(o.body.length) },
        timeout: o.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error: NodeJS.ErrnoException) =>
          finish({ error: error.code ?? error.message, body: '' }),
        );
        res.on('end', () =>
          finish({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            ...header('upstream', res.headers['x-upstream']),
            ...header('requestId', res.headers['x-request-id']),
          }),
        );
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({ error: error.code ?? error.message, body: '' }),
    );
    req.end(o.body);
  });
}

function header<K extends string>(key: K, value: string | string[] | undefined) {
  const text = Array.isArray(value) ? value.join(', ') : value;
  return (text === undefined ? {} : { [key]: text }) as Partial<Record<K, string>>;
}
