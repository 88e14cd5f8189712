import http from 'node:http';
import https from 'node:https';

export interface PostAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface PostOptions {
  /** Header names are sent with the casing given here (the platform sends `Webhookid`). */
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  agent?: http.Agent;
  /** The local address to connect from (the load-balancer proof sends from 127.0.0.2). */
  localAddress?: string;
}

/**
 * One POST of exact bytes with exactly the given headers (plus Host and Content-Length, which
 * belong to the hop). Node's http client rather than fetch: fetch adds headers of its own.
 * Rejects on a network error or timeout (code `TIMEOUT`); any HTTP answer resolves.
 */
export function postBytes(url: URL, options: PostOptions): Promise<PostAnswer> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: { ...options.headers, 'Content-Length': String(options.body.length) },
        timeout: options.timeoutMs,
        ...(options.agent && { agent: options.agent }),
        ...(options.localAddress && { localAddress: options.localAddress }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(
        Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { code: 'TIMEOUT' }),
      ),
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The `status` word of the receiver's JSON envelope, if the answer has one. */
export function envelopeStatus(body: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { status?: unknown };
    return typeof parsed.status === 'string' ? parsed.status : undefined;
  } catch {
    return undefined;
  }
}
