import {
  connect,
  credentials as amqpCredentials,
  type ChannelModel,
  type ConfirmChannel,
} from 'amqplib';
import { describeError } from '../../lib/describe-error.ts';
import type { FeedMessage, Sink, SinkOutcome } from './sink.ts';
import { boundedAttempts } from './bounded-attempts.ts';
import { withinDeadline } from './within-deadline.ts';

/**
 * A RabbitMQ endpoint (docs/feed.md, "Endpoints"): each event published to a durable topic
 * exchange with its type as the routing key, persistent, its id as `message_id`, and `ok` only on
 * the broker's publisher confirm. Published `mandatory`: a message no queue takes is returned by
 * the broker (and then confirmed), which this sink counts as a failure, since nothing holds it.
 */

export interface RabbitMqSinkOptions {
  /** `amqp://host:5672/vhost` (or `amqps://`), without credentials. */
  url: string;
  /** The exchange (topic, durable) to publish to; declared on every new connection. */
  exchange: string;
  /** Kept apart from `url` so that the URL can be printed and logged. */
  credentials?: { username: string; password: string };
  /** Bound on opening the connection (default 5 s); an attempt is bounded by its own timeout too. */
  connectTimeoutMs?: number;
  /** The connection's name as the broker's management shows it. */
  connectionName?: string;
}

/** A publish waiting for its confirm; `returned` once the broker handed it back unroutable. */
interface Unconfirmed {
  messageId: string;
  returned: boolean;
}

interface Link {
  model: ChannelModel;
  channel: ConfirmChannel;
  /** In publish order: a return precedes its message's confirm, on the same channel. */
  unconfirmed: Unconfirmed[];
  /** The broker's resource alarm (memory, disk): publishes would wait unconfirmed. */
  blocked: boolean;
}

export function createRabbitMqSink(options: RabbitMqSinkOptions): Sink {
  let opening: Promise<Link> | undefined;
  const attempts = boundedAttempts('RabbitMQ');

  async function open(onLost: () => void): Promise<Link> {
    const model = await connect(options.url, {
      ...(options.credentials && {
        credentials: amqpCredentials.plain(
          options.credentials.username,
          options.credentials.password,
        ),
      }),
      timeout: options.connectTimeoutMs ?? 5000,
      clientProperties: { connection_name: options.connectionName ?? 'monoova-feed' },
    });
    // A lost connection or channel is never retried here: the next send opens a new one (the
    // relay retries with backoff). Without these listeners an 'error' would end the process.
    const lost = () => {
      onLost();
      model.close().catch(() => {});
    };
    model.on('error', () => {});
    model.on('close', lost);
    let channel: ConfirmChannel;
    try {
      channel = await model.createConfirmChannel();
      channel.on('error', () => {});
      channel.on('close', lost);
      await channel.assertExchange(options.exchange, 'topic', { durable: true });
    } catch (error) {
      lost();
      throw error;
    }
    const link: Link = { model, channel, unconfirmed: [], blocked: false };
    model.on('blocked', () => (link.blocked = true));
    model.on('unblocked', () => (link.blocked = false));
    channel.on('return', (returned: { properties: { messageId?: unknown } }) => {
      const entry = link.unconfirmed.find(
        (candidate) => candidate.messageId === returned.properties.messageId && !candidate.returned,
      );
      if (entry) entry.returned = true;
    });
    return link;
  }

  /** The open link, opening it on first use or after the last one was lost. */
  function link(): Promise<Link> {
    if (opening) return opening;
    const forget = () => {
      if (opening === pending) opening = undefined;
    };
    const pending = open(forget);
    pending.catch(forget);
    opening = pending;
    return pending;
  }

  async function publish(message: FeedMessage): Promise<SinkOutcome> {
    const { channel, unconfirmed, blocked } = await link();
    if (blocked)
      return { ok: false, error: 'RabbitMQ: the broker blocks publishing (resource alarm)' };
    const entry: Unconfirmed = { messageId: message.id, returned: false };
    unconfirmed.push(entry);
    return new Promise<SinkOutcome>((resolve) => {
      const confirmed = (error: unknown) => {
        unconfirmed.splice(unconfirmed.indexOf(entry), 1);
        if (error)
          resolve({ ok: false, error: `RabbitMQ: not confirmed: ${describeError(error)}` });
        else if (entry.returned)
          resolve({
            ok: false,
            error: `RabbitMQ: unroutable: no queue bound to exchange ${options.exchange} takes routing key ${message.type}`,
          });
        else resolve({ ok: true });
      };
      try {
        channel.publish(
          options.exchange,
          message.type,
          Buffer.from(message.body),
          {
            persistent: true,
            mandatory: true,
            messageId: message.id,
            contentType: 'application/json',
            headers: { ...message.headers },
          },
          confirmed,
        );
      } catch (error) {
        // The channel closed under us (amqplib throws rather than calling back).
        confirmed(error ?? new Error('publish refused'));
      }
    });
  }

  function send(message: FeedMessage, timeoutMs: number): Promise<SinkOutcome> {
    return attempts.run(
      () => publish(message),
      timeoutMs,
      `no publisher confirm within ${timeoutMs} ms`,
    );
  }

  async function close(): Promise<void> {
    await attempts.close();
    const pending = opening;
    opening = undefined;
    const current = await pending?.catch(() => undefined);
    if (!current) return;
    // amqplib's close waits for the broker's close-ok, which never comes on a connection whose
    // socket is dying (its 'close' not yet emitted): bounded.
    await withinDeadline(
      current.model.close().catch(() => {}),
      5000,
      () => undefined,
    );
  }

  return { send, close };
}
