import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createRabbitMqSink,
  type RabbitMqSinkOptions,
} from '../../../../src/feed/sinks/rabbitmq-sink.ts';
import type { FeedMessage, Sink } from '../../../../src/feed/sinks/sink.ts';
import { startTcpProxy } from '../../../../tools/common/tcp-proxy.ts';
import { feedMessage, resendFailed, sendStream } from '../../../support/broker-messages.ts';
import {
  holdRabbitMq,
  openTestRabbitMq,
  RABBITMQ_URL,
  type TestRabbitMq,
} from '../../../support/rabbitmq.ts';

/**
 * The RabbitMQ sink against the machine's broker (an exchange and queue of each test's own):
 * what a consumer receives, an unroutable message as a failure, and a connection cut mid-stream
 * (a proxy between sink and broker). The broker restarted mid-stream is
 * rabbitmq-restart.test.ts.
 */

const TIMEOUT_MS = 2000;

let rabbit: TestRabbitMq;
let release: () => void;
const sinks: Sink[] = [];

beforeAll(async () => {
  release = await holdRabbitMq();
  rabbit = await openTestRabbitMq();
});
afterEach(async () => {
  for (const sink of sinks.splice(0)) await sink.close();
});
afterAll(async () => {
  await rabbit?.close();
  release?.();
});

function newSink(options: Partial<RabbitMqSinkOptions> & { exchange: string }) {
  const sink = createRabbitMqSink({ url: RABBITMQ_URL, ...options });
  sinks.push(sink);
  return sink;
}

const ids = (messages: { properties: { messageId?: unknown } }[]) =>
  messages.map((message) => String(message.properties.messageId));

describe('the RabbitMQ sink', () => {
  it('when events are sent, then the bound queue holds each, persistent, with its id as message_id, its type as routing key, its Standard Webhooks headers, a JSON content type and the exact body; the exchange is durable', async () => {
    const { exchange, queue } = await rabbit.topology();
    const sink = newSink({ exchange });
    const sent: FeedMessage[] = [feedMessage(1), feedMessage(2, 'quarantine.opened')];
    for (const message of sent) expect(await sink.send(message, TIMEOUT_MS)).toEqual({ ok: true });

    const received = await rabbit.drain(queue);
    expect(
      received.map((message) => ({
        exchange: message.fields.exchange,
        routingKey: message.fields.routingKey,
        messageId: message.properties.messageId,
        contentType: message.properties.contentType,
        deliveryMode: message.properties.deliveryMode,
        headers: message.properties.headers,
        body: message.content.toString(),
      })),
    ).toEqual(
      sent.map((message) => ({
        exchange,
        routingKey: message.type,
        messageId: message.id,
        contentType: 'application/json',
        deliveryMode: 2,
        headers: message.headers,
        body: message.body,
      })),
    );
    // Declaring it again as transient is refused: the sink made (or found) it durable.
    const probe = await rabbit.model.createChannel();
    probe.on('error', () => {});
    await expect(probe.assertExchange(exchange, 'topic', { durable: false })).rejects.toThrow(
      /PRECONDITION_FAILED/,
    );
  });

  it('when no queue takes a message (nothing bound for its routing key), then the send fails and says so; a type a queue takes still goes', async () => {
    const { exchange, queue } = await rabbit.topology('payment.*');
    const sink = newSink({ exchange });
    expect(await sink.send(feedMessage(1, 'quarantine.opened'), TIMEOUT_MS)).toEqual({
      ok: false,
      error: `RabbitMQ: unroutable: no queue bound to exchange ${exchange} takes routing key quarantine.opened`,
    });
    expect(await sink.send(feedMessage(2, 'payment.received'), TIMEOUT_MS)).toEqual({ ok: true });
    expect(ids(await rabbit.drain(queue))).toEqual(['evt_2']);
  });

  it('when the credentials are wrong or the broker is unreachable, then a send fails within its timeout and says why; the given credentials are the ones used', async () => {
    const { exchange } = await rabbit.topology();
    expect(
      await newSink({
        exchange,
        credentials: { username: 'guest', password: 'not-the-password' },
      }).send(feedMessage(1), TIMEOUT_MS),
    ).toMatchObject({ ok: false, error: expect.stringMatching(/ACCESS_REFUSED|403/) });
    expect(
      await newSink({ exchange, credentials: { username: 'guest', password: 'guest' } }).send(
        feedMessage(1),
        TIMEOUT_MS,
      ),
    ).toEqual({ ok: true });
    const started = Date.now();
    expect(
      await newSink({ exchange, url: 'amqp://127.0.0.1:1' }).send(feedMessage(1), TIMEOUT_MS),
    ).toMatchObject({ ok: false, error: expect.stringMatching(/ECONNREFUSED/) });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 500);
  });

  it('when the connection is cut mid-stream of 200 sends (a proxy between sink and broker), then every send that answered ok is in the queue, sends during the cut fail, and afterwards each failed one goes through', async () => {
    const { exchange, queue } = await rabbit.topology();
    const url = new URL(RABBITMQ_URL);
    const proxy = await startTcpProxy(url.hostname, Number(url.port || 5672));
    try {
      const sink = newSink({ exchange, url: `amqp://127.0.0.1:${proxy.port}` });
      const send = (message: FeedMessage) => sink.send(message, TIMEOUT_MS);
      const run = await sendStream(send, {
        count: 200,
        concurrency: 4,
        at: 80,
        midway: async () => {
          proxy.cut();
          await new Promise((resolve) => setTimeout(resolve, 1000));
          proxy.restore();
        },
      });
      expect(run.ok.size).toBeGreaterThanOrEqual(80);
      expect(run.failed.size).toBeGreaterThan(0);
      for (const error of run.failed.values()) expect(error).toMatch(/^RabbitMQ: /);

      const afterCut = new Set(ids(await rabbit.drain(queue)));
      for (const id of run.ok) expect(afterCut.has(id), id).toBe(true);

      await resendFailed(run, send);
      const all = new Set([...afterCut, ...ids(await rabbit.drain(queue))]);
      expect(all.size).toBe(200);
    } finally {
      await proxy.close();
    }
  });
});
