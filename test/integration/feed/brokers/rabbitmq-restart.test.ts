import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRabbitMqSink } from '../../../../src/feed/sinks/rabbitmq-sink.ts';
import type { FeedMessage } from '../../../../src/feed/sinks/sink.ts';
import { resendFailed, sendStream } from '../../../support/broker-messages.ts';
import { holdRabbitMq, openTestRabbitMq, RABBITMQ_URL } from '../../../support/rabbitmq.ts';

/**
 * The machine's RabbitMQ restarted mid-stream (`rabbitmqctl stop_app`, then `start_app`: the
 * node stays up, the broker application and every connection go): the only test that restarts
 * it, holding the broker (test/support/rabbitmq.ts) so that no other file's connections are cut.
 * Every send that answered ok is in the durable queue after the restart (persistent messages);
 * sends while it is down fail; afterwards the sink reconnects on its next send.
 */

const TIMEOUT_MS = 2000;
const run = promisify(execFile);
/** rabbitmqctl takes 1–3 s per command here; bounded well above that. */
const rabbitmqctl = (command: string) => run('rabbitmqctl', [command], { timeout: 60_000 });

let release: () => void;
beforeAll(async () => {
  release = await holdRabbitMq();
});
afterAll(async () => {
  // Whatever happened above, the broker is left running for the files after this one.
  await rabbitmqctl('start_app').catch(() => {});
  release?.();
});

describe('the RabbitMQ sink across a broker restart', () => {
  it('when the broker application is stopped and started mid-stream of 200 sends, then every send that answered ok is in the durable queue afterwards, sends while it is down fail, and then each failed one goes through', async () => {
    const before = await openTestRabbitMq();
    const { exchange, queue } = await before.topology();
    await before.model.close();
    const sink = createRabbitMqSink({ url: RABBITMQ_URL, exchange });
    try {
      const send = (message: FeedMessage) => sink.send(message, TIMEOUT_MS);
      const sent = await sendStream(send, {
        count: 200,
        concurrency: 4,
        at: 80,
        // 200 sends over about 8 s: rabbitmqctl takes seconds to stop and start the broker.
        paceMs: 150,
        midway: async () => {
          await rabbitmqctl('stop_app');
          await rabbitmqctl('start_app');
        },
      });
      expect(sent.ok.size).toBeGreaterThanOrEqual(80);
      expect(sent.failed.size).toBeGreaterThan(0);
      for (const error of sent.failed.values()) expect(error).toMatch(/^RabbitMQ: /);

      const after = await openTestRabbitMq();
      try {
        const stored = new Set(
          (await after.drain(queue)).map((message) => String(message.properties.messageId)),
        );
        for (const id of sent.ok) expect(stored.has(id), id).toBe(true);

        await resendFailed(sent, send, 30_000);
        for (const message of await after.drain(queue))
          stored.add(String(message.properties.messageId));
        expect(stored.size).toBe(200);
      } finally {
        await after.channel.deleteQueue(queue);
        await after.channel.deleteExchange(exchange);
        await after.model.close();
      }
    } finally {
      await sink.close();
    }
  });
});
