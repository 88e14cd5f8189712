import { setTimeout as sleepFor } from 'node:timers/promises';
import { connect, credentials as amqpCredentials } from 'amqplib';
import { describeError } from './log.js';

/**
 * @typedef {object} RabbitMqConfig
 * @property {string} url       `amqp://host:5672/vhost`, without credentials
 * @property {string} exchange  the receiver's endpoint exchange (durable, topic)
 * @property {string} queue     this consumer's durable queue, bound to the exchange for `#`
 * @property {{ username: string, password: string } | undefined} credentials
 */

/**
 * RabbitMQ mode: this consumer's durable queue, bound to the receiver's exchange for every
 * routing key (declared if missing, so that the receiver's mandatory publishes have somewhere
 * to go), each message through the push path's steps (broker-message.js), acknowledged only
 * after the ledger has it. A message refused is rejected without requeue (dead-lettered if the
 * queue has a dead-letter exchange); one the database failed on is requeued after 5 s. A lost
 * connection ends `read` (unacknowledged messages go back to the queue), and keep-reading.js
 * starts it again.
 *
 * @param {RabbitMqConfig} config
 * @param {(message: import('./broker-message.js').BrokerMessage) =>
 *   Promise<import('./broker-message.js').Disposal>} handle
 * @param {import('./log.js').Log} log
 * @returns {(signal: AbortSignal) => Promise<void>}
 */
export function rabbitMqReader(config, handle, log) {
  return async (signal) => {
    const model = await connect(config.url, {
      ...(config.credentials && {
        credentials: amqpCredentials.plain(
          config.credentials.username,
          config.credentials.password,
        ),
      }),
      clientProperties: { connection_name: 'ledger-consumer' },
    });
    /** @type {Promise<Error>} */
    const lost = new Promise((resolve) => {
      model.on('error', () => {});
      model.on('close', (error) => resolve(error ?? new Error('connection closed')));
    });
    /** @type {Set<Promise<void>>} */
    const handling = new Set();
    try {
      const channel = await model.createChannel();
      channel.on('error', (error) =>
        log.warn('rabbitmq: channel error', { error: describeError(error) }),
      );
      await channel.assertExchange(config.exchange, 'topic', { durable: true });
      await channel.assertQueue(config.queue, { durable: true });
      await channel.bindQueue(config.queue, config.exchange, '#');
      await channel.prefetch(50);
      const { consumerTag } = await channel.consume(config.queue, (message) => {
        if (message === null) return; // cancelled by the broker (the queue deleted)
        const done = (async () => {
          const disposal = await handle({
            raw: message.content,
            headers: message.properties.headers ?? {},
            messageId: message.properties.messageId,
          });
          if (disposal === 'retry') await sleepFor(5000, undefined, { signal }).catch(() => {});
          // On a channel lost meanwhile these throw: the message is redelivered anyway.
          if (disposal === 'ack') channel.ack(message);
          else channel.nack(message, false, disposal === 'retry');
        })().catch((error) =>
          log.warn('rabbitmq: not acknowledged', { error: describeError(error) }),
        );
        handling.add(done);
        void done.finally(() => handling.delete(done));
      });
      log.info('rabbitmq: reading', { exchange: config.exchange, queue: config.queue });
      const aborted = new Promise((resolve) =>
        signal.addEventListener('abort', resolve, { once: true }),
      );
      const ended = await Promise.race([lost, aborted]);
      if (!signal.aborted) throw ended;
      // Stopping: no new deliveries; those being stored finish (and are acknowledged) first.
      await channel.cancel(consumerTag).catch(() => {});
      await Promise.allSettled(handling);
    } finally {
      await model.close().catch(() => {});
    }
  };
}
