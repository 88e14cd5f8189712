export type PostOutcome = { ok: true; status: number } | { ok: false; error: string };

/**
 * One POST of an event. Success is a 2xx and nothing else: a redirect is not followed (the
 * signature names this URL's consumer), and a timeout, a refused connection or any other
 * status is a failure to retry. The answer's body is not read.
 */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostOutcome> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel().catch(() => {});
    return response.status >= 200 && response.status < 300
      ? { ok: true, status: response.status }
      : { ok: false, error: `HTTP ${response.status}` };
  } catch (error) {
    return { ok: false, error: describeFailure(error, timeoutMs) };
  }
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'TimeoutError') {
    return `no answer within ${timeoutMs} ms`;
  }
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.message : String(error);
}
