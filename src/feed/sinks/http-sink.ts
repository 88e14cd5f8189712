import { HttpCallError, httpCall } from '../../lib/http-client.ts';
import type { FeedMessage, Sink, SinkOutcome } from './sink.ts';

/** How much of a consumer's answer the attempt log keeps. */
const EXCERPT_BYTES = 256;

/**
 * An HTTP endpoint: each message POSTed to `url` with its Standard Webhooks headers. Success is
 * a 2xx and nothing else: a redirect is not followed (the signature names this URL's consumer),
 * and a timeout, a refused connection or any other status is a failure to retry. The first
 * bytes of the answer (whatever its status) go to the attempt log.
 */
export function createHttpSink(url: string, call: typeof httpCall = httpCall): Sink {
  return {
    async send(message: FeedMessage, timeoutMs: number): Promise<SinkOutcome> {
      try {
        const { status, body } = await call({
          url,
          method: 'POST',
          headers: { 'content-type': 'application/json', ...message.headers },
          body: message.body,
          timeoutMs,
          maxResponseBytes: EXCERPT_BYTES,
          keepPrefix: true,
          accept: (answered) => answered >= 200 && answered < 300,
        });
        return { ok: true, status, ...excerpt(body.toString('utf8')) };
      } catch (error) {
        // Kept short for last_error: `HTTP 503`, `ECONNREFUSED`, `no answer within 5000 ms`.
        if (!(error instanceof HttpCallError)) return { ok: false, error: String(error) };
        if (error.kind === 'status' && error.status !== undefined) {
          return {
            ok: false,
            error: `HTTP ${error.status}`,
            status: error.status,
            ...excerpt(error.body),
          };
        }
        return { ok: false, error: error.code ?? error.message };
      }
    },
    close: () => Promise.resolve(),
  };
}

/** The answer's text as Postgres can store it (no NUL), absent when empty. */
function excerpt(text: string | undefined): { excerpt?: string } {
  const stored = text?.replaceAll('\u0000', '');
  return stored ? { excerpt: stored } : {};
}
