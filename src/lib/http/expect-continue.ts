import type { ServerResponse } from 'node:http';

/**
 * `Expect: 100-continue` asks the server whether to send the body. Node would say yes to
 * everyone before the app runs; `listen()` takes over the 'checkContinue' event and marks the
 * response instead, and the body reader says yes only once the request has passed every check
 * that needs no body (route, shared secret, budgets): unauthenticated clients are never invited.
 */
const CONTINUE_PENDING = Symbol('100-continue pending');

type Marked = ServerResponse & { [CONTINUE_PENDING]?: boolean };

/** Called by the server for a request that asked for 100-continue: nothing is sent yet. */
export function markContinuePending(res: ServerResponse): void {
  (res as Marked)[CONTINUE_PENDING] = true;
}

/** Sends the pending 100 Continue, if this request asked for one and has not had it. */
export function inviteBody(res: ServerResponse): void {
  const marked = res as Marked;
  if (!marked[CONTINUE_PENDING]) return;
  marked[CONTINUE_PENDING] = false;
  if (!res.headersSent) res.writeContinue();
}
