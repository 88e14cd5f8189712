import type autocannon from 'autocannon';

/**
 * Hooks on autocannon's per-connection client, installed through its documented `setupClient`
 * option. They wrap `Client#_doRequest`, which autocannon 8 calls once when a connection opens
 * and again right after each response: the one place where "send the next request" is decided.
 * It is internal, so a missing one stops the run instead of measuring the wrong thing.
 */

export interface HookedClient {
  _doRequest: (...args: unknown[]) => void;
  destroyed: boolean;
  destroy: () => void;
}

export type SendDecision = (send: () => void, client: HookedClient) => void;

/** Routes every "send the next request" of the client through `decide`. */
export function interceptSends(client: autocannon.Client, decide: SendDecision): void {
  const hooked = client as unknown as HookedClient;
  if (typeof hooked._doRequest !== 'function' || typeof hooked.destroy !== 'function') {
    throw new Error('autocannon internals changed: Client#_doRequest is missing');
  }
  const send = hooked._doRequest;
  hooked._doRequest = (...args: unknown[]) => {
    decide(() => {
      if (!hooked.destroyed) send.apply(hooked, args);
    }, hooked);
  };
}

/**
 * Ends the run at a deadline without dropping a request in flight: past the deadline, a
 * connection closes instead of sending its next request, so every request sent is answered and
 * the 200s can be compared exactly with the rows stored. (autocannon's own `duration` drops the
 * connections, in-flight requests and all.)
 */
export function drainAt(deadline: number): SendDecision {
  return (send, client) => {
    if (performance.now() >= deadline) client.destroy();
    else send();
  };
}
