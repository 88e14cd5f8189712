/**
 * Where an endpoint's events go (docs/feed.md, "Endpoints"): a URL to POST to, or a broker to
 * publish into. The relay knows only this interface: it claims an event for an endpoint, hands
 * the rendered message to the endpoint's sink, and records the outcome as an attempt. A sink
 * answers `ok` only once the other side has taken the message for good (a 2xx; a broker's
 * publish acknowledgement or confirm), so nothing is marked delivered that was not.
 */

/** One event as every sink receives it. */
export interface FeedMessage {
  /** `evt_<feed_events.id>`: the same on every attempt and every replay (consumers dedupe on it). */
  id: string;
  /** The feed event type (`payment.received`), a broker's subject suffix or routing key. */
  type: string;
  /** The event's position, as a decimal string. */
  position: string;
  /** The JSON envelope (docs/feed.md, "The event body"), the exact text to send. */
  body: string;
  /**
   * Standard Webhooks headers for this attempt (`webhook-id`, `webhook-timestamp`,
   * `webhook-signature`), signed with each of the endpoint's secrets; empty when it has none.
   * HTTP sends them as headers; a broker as message headers.
   */
  headers: Readonly<Record<string, string>>;
}

/** What one attempt came to, as the attempt log records it. */
export type SinkOutcome =
  | { ok: true; status?: number; excerpt?: string }
  | { ok: false; error: string; status?: number; excerpt?: string };

export interface Sink {
  /** One attempt; never throws (a failure is an outcome), answers within `timeoutMs`. */
  send(message: FeedMessage, timeoutMs: number): Promise<SinkOutcome>;
  /** Closes connections; messages in flight get their outcome first. */
  close(): Promise<void>;
}
