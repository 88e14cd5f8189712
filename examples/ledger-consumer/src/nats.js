import { Buffer } from 'node:buffer';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, nanos } from '@nats-io/transport-node';

/**
 * @typedef {object} NatsConfig
 * @property {string[]} servers
 * @property {string} stream    the receiver's endpoint stream (its `options.stream`)
 * @property {string} consumer  this consumer's durable name: its position in the stream
 * @property {{ token: string } | { user: string, pass: string } | undefined} credentials
 */

/**
 * NATS JetStream mode: a durable pull consumer on the receiver's stream (made if missing,
 * explicit acks), each message through the push path's steps (broker-message.js), acknowledged
 * only after the ledger has it (and the server confirmed the ack: `ackAck`). A message refused
 * is terminated (never redelivered); one the database failed on is redelivered after 5 s. The
 * client reconnects by itself; a failure here ends `read`, and keep-reading.js starts it again.
 *
 * @param {NatsConfig} config
 * @param {(message: import('./broker-message.js').BrokerMessage) =>
 *   Promise<import('./broker-message.js').Disposal>} handle
 * @param {import('./log.js').Log} log
 * @returns {(signal: AbortSignal) => Promise<void>}
 */
export function natsReader(config, handle, log) {
  return async (signal) => {
    const nc = await connect({
      servers: config.servers,
      ...config.credentials,
      name: 'ledger-consumer',
      maxReconnectAttempts: -1,
    });
    try {
      const manager = await jetstreamManager(nc);
      await manager.consumers.info(config.stream, config.consumer).catch(() =>
        manager.consumers.add(config.stream, {
          durable_name: config.consumer,
          ack_policy: AckPolicy.Explicit,
          // Longer than a database failover: an unacknowledged message comes again after it.
          ack_wait: nanos(60_000),
        }),
      );
      const consumer = await jetstream(nc).consumers.get(config.stream, config.consumer);
      const messages = await consumer.consume({ max_messages: 50 });
      const stop = () => messages.stop();
      signal.addEventListener('abort', stop, { once: true });
      log.info('nats: reading', { stream: config.stream, consumer: config.consumer });
      for await (const message of messages) {
        /** @type {Record<string, string>} */
        const headers = {};
        for (const key of message.headers?.keys() ?? [])
          headers[key] = message.headers?.get(key) ?? '';
        const disposal = await handle({
          raw: Buffer.from(message.data),
          headers,
          messageId: message.headers?.get('Nats-Msg-Id'),
        });
        if (disposal === 'ack') await message.ackAck();
        else if (disposal === 'retry') message.nak(5000);
        // No reason text: servers before 2.10.4 ignore a +TERM that carries one.
        else message.term();
      }
      signal.removeEventListener('abort', stop);
      if (!signal.aborted) throw new Error('the JetStream consumer stopped');
    } finally {
      await nc.drain().catch(() => nc.close());
    }
  };
}
