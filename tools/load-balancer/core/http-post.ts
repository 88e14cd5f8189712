import type http from 'node:http';
import { postBytes } from '../../common/post-delivery.ts';

/** What one attempt got: an HTTP answer, or a network error code. */
export interface Answer {
  status?: number;
  error?: string;
  body: string;
  /** nginx's X-Upstream: the instances that handled it, in order (two when nginx re-sent it). */
  upstreams: string[];
  startedAt: number;
  endedAt: number;
}

/**
 * The sender's side of the loopback: requests leave from 127.0.0.2, so the receivers can only
 * learn that address from nginx's X-Forwarded-For (nginx itself connects from 127.0.0.1).
 */
export const SENDER_ADDRESS = '127.0.0.2';

/** One POST from the sender's address; never rejects: a network error is an answer too. */
export async function post(o: {
  url: URL;
  headers: Record<string, string>;
  body: Buffer;
  agent: http.Agent;
  timeoutMs: number;
}): Promise<Answer> {
  const startedAt = performance.now();
  try {
    const answer = await postBytes(o.url, { ...o, localAddress: SENDER_ADDRESS });
    const upstream = answer.headers['x-upstream'];
    return {
      status: answer.status,
      body: answer.body.toString('utf8'),
      upstreams: [upstream ?? []]
        .flat()
        .join(',')
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
      startedAt,
      endedAt: performance.now(),
    };
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    return {
      error: code ?? message,
      body: '',
      upstreams: [],
      startedAt,
      endedAt: performance.now(),
    };
  }
}

/** The instance that gave the answer (the last nginx tried), if nginx said. */
export function answeredBy(answer: Answer | undefined): string | undefined {
  return answer?.upstreams.at(-1);
}
