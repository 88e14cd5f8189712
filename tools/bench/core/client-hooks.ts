import type autocannon from 'autocannon';

/**
 * Hooks on autocannon's per-connection client, installed through its documented `setupClient`
 * option. They wrap `Client#_doRequest`, which autocannon 8 calls once when a connection opens
 * and again right after each response: the one place where "send the next request" is decided.
 * It is internal, so a missing one stops the run instead of measuring the wrong thing.
 */

interface HookedClient {
  _doRequest: (...args: unknown[]) => void;
  destroyed: boolean;
  destroy: () => void;
}

type SendDecision = (send: () => void, client: HookedClient) => void;

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

/**
 * Evenly spaced sends for the fixed-rate phase. autocannon's own `overallRate` is a per-second
 * budget per connection: each second every connection sends its share back to back, then waits
 * for the next second, so "1,000/s" arrives as a burst at full concurrency at the start of each
 * second. The pacer instead gives connection i of C the send times
 *   start + i/rate + k*C/rate   (k = 0, 1, 2, ...)
 * so requests arrive one every 1/rate seconds across all connections.
 *
 * Coordinated omission: when a response comes back after the next send time of its connection,
 * that send is late because of the server. The delay is kept and added to that request's
 * latency, so a stalling server cannot hide its stall by delaying the clock.
 */

export interface Pacer {
  setupClient: (client: autocannon.Client) => void;
  /** Call on each response of `client`: how long its request was held back by the server. */
  takeHeldBackMs(client: autocannon.Client): number;
}

export function createPacer(options: { rate: number; connections: number }): Pacer {
  const spacingMs = 1000 / options.rate;
  const intervalMs = spacingMs * options.connections;
  // Let every connection open before the first send is due.
  const startAt = performance.now() + 50;
  const heldBack = new Map<autocannon.Client, number[]>();
  let nextIndex = 0;

  return {
    setupClient(client) {
      const queue: number[] = [];
      heldBack.set(client, queue);
      const firstAt = startAt + nextIndex * spacingMs;
      nextIndex += 1;
      let slot = 0;
      interceptSends(client, (send) => {
        const dueAt = firstAt + slot * intervalMs;
        slot += 1;
        const now = performance.now();
        if (now >= dueAt) {
          queue.push(now - dueAt);
          send();
        } else {
          setTimeout(() => {
            queue.push(0);
            send();
          }, dueAt - now);
        }
      });
    },
    takeHeldBackMs(client) {
      return heldBack.get(client)?.shift() ?? 0;
    },
  };
}
