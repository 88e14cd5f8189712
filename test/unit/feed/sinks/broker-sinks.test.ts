import { describe, expect, it } from 'vitest';
import { natsSinkFor, rabbitMqSinkFor } from '../../../../src/feed/sinks/broker-sinks.ts';

/**
 * A broker endpoint's row read into a sink: what it needs, and a password refused in the URL.
 * Nothing connects until the first send, so these make sinks without a broker.
 */
describe('broker sinks from endpoint rows', () => {
  it('when a row fits, then a sink is made (connecting only on its first send)', async () => {
    const nats = natsSinkFor({
      target: 'nats://127.0.0.1:4222',
      options: { subject: 'feed', stream: 'FEED', user: 'feed' },
      credentials: 'secret',
    });
    const rabbit = rabbitMqSinkFor({
      target: 'amqp://127.0.0.1:5672/',
      options: { exchange: 'feed', user: 'feed' },
      credentials: 'secret',
    });
    await Promise.all([nats.close(), rabbit.close()]);
  });

  it.each([
    [
      'nats without a subject',
      () => natsSinkFor({ target: 'nats://h:4222', options: {}, credentials: null }),
      /options.subject/,
    ],
    [
      'nats with a password in the URL',
      () =>
        natsSinkFor({ target: 'nats://u:p@h:4222', options: { subject: 's' }, credentials: null }),
      /carries credentials/,
    ],
    [
      'rabbitmq without an exchange',
      () => rabbitMqSinkFor({ target: 'amqp://h', options: {}, credentials: null }),
      /options.exchange/,
    ],
    [
      'rabbitmq with a password in the URL',
      () =>
        rabbitMqSinkFor({ target: 'amqp://u:p@h', options: { exchange: 'e' }, credentials: null }),
      /carries credentials/,
    ],
    [
      'rabbitmq with credentials but no user',
      () =>
        rabbitMqSinkFor({ target: 'amqp://h', options: { exchange: 'e' }, credentials: 'secret' }),
      /options.user/,
    ],
    [
      'a target that is no URL',
      () => natsSinkFor({ target: 'not a url', options: { subject: 's' }, credentials: null }),
      /not a URL/,
    ],
  ])(
    'when %s, then it is refused, saying what is wrong and never the secret',
    (_, make, message) => {
      expect(make).toThrow(message);
      expect(make).not.toThrow(/secret|:p@/);
    },
  );
});
