import {
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  StorageType,
  type JetStreamClient,
} from '@nats-io/jetstream';
import {
  connect,
  headers as natsHeaders,
  nanos,
  NoRespondersError,
  type NatsConnection,
} from '@nats-io/transport-node';
import type { FeedMessage, Sink, SinkOutcome } from './sink.ts';
import { boundedAttempts } from './bounded-attempts.ts';
import { withinDeadline } from './within-deadline.ts';

/**
 * A NATS JetStream endpoint (docs/feed.md, "Endpoints"): each event published to
 * `<subjectPrefix>.<event type>` with its id as `Nats-Msg-Id`, and `ok` only on the stream's
 * publish acknowledgement (the message is stored, by the stream's replicas when it has any).
 */

export type NatsCredentials = { token: string } | { user: string; pass: string };

export interface NatsSinkOptions {
  /** `nats://host:4222` (several comma-separated for a cluster), without credentials. */
  servers: string;
  /** Subjects are `<subjectPrefix>.<event type>`, e.g. `monoova.feed.payment.received`. */
  subjectPrefix: string;
  /**
   * A stream to make on first use when missing, capturing `<subjectPrefix>.>`. Without it the
   * stream must exist (an operator's): a subject no stream captures fails every attempt.
   */
  stream?: string;
  /** Kept apart from `servers` so that the URL can be printed and logged. */
  credentials?: NatsCredentials;
  /** Bound on opening the connection (default 5 s); an attempt is bounded by its own timeout too. */
  connectTimeoutMs?: number;
  /** The connection's name as the server's monitoring shows it. */
  connectionName?: string;
}

/**
 * The duplicate window of a stream this sink makes. A publish whose acknowledgement did not
 * arrive in time (the connection dropped, the server was slow) may still have been stored, and
 * the relay sends it again after a backoff of seconds to minutes; within the window the stream
 * drops that copy by its `Nats-Msg-Id` (the ack says `duplicate`). Two minutes (JetStream's own
 * default) covers an attempt's timeout plus the first retries; a retry later than that may add
 * a second copy, which consumers drop by the id (the feed is at least once either way). A longer
 * window costs the server memory: it keeps every id of the window.
 */
const DUPLICATE_WINDOW_MS = 2 * 60_000;

interface Connection {
  nc: NatsConnection;
  js: JetStreamClient;
  /** False between a disconnect and the client's reconnect: sends fail fast meanwhile. */
  up: boolean;
  /** Whether `stream` is known to exist on this connection's server. */
  streamReady: boolean;
}

export function createNatsSink(options: NatsSinkOptions): Sink {
  const subjectPrefix = options.subjectPrefix.replace(/\.+$/, '');
  let opening: Promise<Connection> | undefined;
  const attempts = boundedAttempts('NATS');

  async function open(onClosed: () => void): Promise<Connection> {
    const nc = await connect({
      servers: options.servers.split(',').map((server) => server.trim()),
      ...options.credentials,
      name: options.connectionName ?? 'monoova-feed',
      timeout: options.connectTimeoutMs ?? 5000,
      // Reconnect for ever (the relay keeps retrying meanwhile); the first connect fails at once
      // so that an attempt reports the server unreachable instead of waiting out its timeout.
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
      waitOnFirstConnect: false,
    });
    const connection: Connection = { nc, js: jetstream(nc), up: true, streamReady: false };
    const watch = async () => {
      for await (const status of nc.status()) {
        if (status.type === 'disconnect') connection.up = false;
        if (status.type === 'reconnect') connection.up = true;
      }
    };
    watch().catch(() => {});
    // A connection the client gave up on (or that we closed): the next send opens a new one.
    const forget = () => {
      connection.up = false;
      onClosed();
    };
    nc.closed().then(forget, forget);
    return connection;
  }

  /** The open connection, opening it on first use (or after the client gave up on one). */
  function connection(): Promise<Connection> {
    if (opening) return opening;
    const forget = () => {
      if (opening === pending) opening = undefined;
    };
    const pending = open(forget);
    // A failed open is forgotten too, so that the next send tries again.
    pending.catch(forget);
    opening = pending;
    return pending;
  }

  async function ensureStream(connection: Connection): Promise<void> {
    if (!options.stream || connection.streamReady) return;
    const manager = await jetstreamManager(connection.nc);
    try {
      await manager.streams.info(options.stream);
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound))
        throw error;
      await manager.streams.add({
        name: options.stream,
        subjects: [`${subjectPrefix}.>`],
        storage: StorageType.File,
        duplicate_window: nanos(DUPLICATE_WINDOW_MS),
      });
    }
    connection.streamReady = true;
  }

  async function publish(message: FeedMessage, timeoutMs: number): Promise<SinkOutcome> {
    const started = Date.now();
    const conn = await connection();
    if (!conn.up) {
      return { ok: false, error: `NATS: not connected to ${options.servers} (reconnecting)` };
    }
    await ensureStream(conn);
    const messageHeaders = natsHeaders();
    for (const [name, value] of Object.entries(message.headers)) messageHeaders.set(name, value);
    messageHeaders.set('content-type', 'application/json');
    try {
      const ack = await conn.js.publish(`${subjectPrefix}.${message.type}`, message.body, {
        msgID: message.id,
        headers: messageHeaders,
        timeout: Math.max(1, timeoutMs - (Date.now() - started)),
        ...(options.stream && { expect: { streamName: options.stream } }),
      });
      return {
        ok: true,
        excerpt: JSON.stringify({
          stream: ack.stream,
          seq: ack.seq,
          ...(ack.duplicate && { duplicate: true }),
        }),
      };
    } catch (error) {
      // No stream captures the subject (or it was deleted): make it again on the next attempt.
      if (error instanceof NoRespondersError || hasNoRespondersCause(error))
        conn.streamReady = false;
      throw error;
    }
  }

  function send(message: FeedMessage, timeoutMs: number): Promise<SinkOutcome> {
    return attempts.run(
      () => publish(message, timeoutMs),
      timeoutMs,
      `no publish acknowledgement within ${timeoutMs} ms`,
    );
  }

  async function close(): Promise<void> {
    await attempts.close();
    const pending = opening;
    opening = undefined;
    const conn = await pending?.catch(() => undefined);
    if (!conn || conn.nc.isClosed()) return;
    // Drain flushes what was published and ends the subscriptions; a server that does not
    // answer is not waited for beyond a few seconds.
    const drained = conn.nc.drain().catch(() => {});
    await withinDeadline(drained, 5000, () => undefined);
    if (!conn.nc.isClosed()) await conn.nc.close();
  }

  return { send, close };
}

function hasNoRespondersCause(error: unknown): boolean {
  return error instanceof Error && error.cause instanceof NoRespondersError;
}
