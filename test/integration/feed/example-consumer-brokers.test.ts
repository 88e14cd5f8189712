import { spawn } from 'node:child_process';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNatsSink } from '../../../src/feed/sinks/nats-sink.ts';
import { createRabbitMqSink } from '../../../src/feed/sinks/rabbitmq-sink.ts';
import type { FeedMessage, Sink } from '../../../src/feed/sinks/sink.ts';
import { newWebhookSecret } from '../../support/feed-consumer.ts';
import { startNatsServer, type TestNatsServer } from '../../support/nats-server.ts';
import {
  holdRabbitMq,
  openTestRabbitMq,
  RABBITMQ_URL,
  type TestRabbitMq,
} from '../../support/rabbitmq.ts';
import {
  exitWithin,
  PROJECT_DIR,
  waitFor,
  type RunningProcess,
} from '../../support/receiver-process.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * The example consumer (examples/ledger-consumer) reading broker endpoints, as a merchant runs
 * it (`node src/main.js`, configured through the environment): events published by the feed's
 * own NATS and RabbitMQ sinks, signed with the endpoint's secret, are stored once each (a
 * repeat skipped), a message signed with another secret is refused and not stored, and every
 * message is acknowledged (nothing pending in the stream's consumer or the queue).
 */

const EXAMPLE_MAIN = path.join(PROJECT_DIR, 'examples', 'ledger-consumer', 'src', 'main.js');
const TIMEOUT_MS = 3000;

let nats: TestNatsServer;
let rabbit: TestRabbitMq;
let release: () => void;
let ledger: TestDatabase;
const sinks: Sink[] = [];

beforeAll(async () => {
  release = await holdRabbitMq();
  [nats, rabbit, ledger] = await Promise.all([
    startNatsServer(),
    openTestRabbitMq(),
    createTestDatabase(async () => {}),
  ]);
});
afterAll(async () => {
  for (const sink of sinks) await sink.close();
  await rabbit?.close();
  await nats?.stop();
  await ledger?.drop();
  release?.();
});

function runExample(env: Record<string, string>): RunningProcess {
  let output = '';
  const child = spawn(process.execPath, [EXAMPLE_MAIN], {
    cwd: PROJECT_DIR,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/**
 * A feed event as the relay hands it to a sink, signed with `secret` an hour ago: a broker
 * message may wait that long, and the consumer must not refuse it for its age.
 */
function signedEvent(position: number, secret: string, type = 'payment.received'): FeedMessage {
  const id = `evt_${position}`;
  const body = JSON.stringify({
    id,
    type,
    position: String(position),
    timestamp: '2026-11-29T03:35:11.329Z',
    data: {
      eventName: 'NPPReceivePayment',
      businessKey: `TX${position}`,
      webhookId: String(1000 + position),
      receivedAt: '2026-11-29T03:35:11.201Z',
      fields: { transaction_id: `TX${position}`, amount: `12345678901.${position}` },
    },
  });
  const at = new Date(Date.now() - 3_600_000);
  return {
    id,
    type,
    position: String(position),
    body,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, body),
    },
  };
}

const storedIds = async () =>
  (
    await ledger.query<{ event_id: string }>('SELECT event_id FROM ledger_events ORDER BY position')
  ).map((row) => row.event_id);

describe('the example ledger consumer reading broker endpoints', () => {
  it('when the feed publishes signed events to NATS JetStream and RabbitMQ, then each is stored once with its exact amount, a repeat is skipped, one signed with another secret is refused, and every message is acknowledged', async () => {
    const secret = newWebhookSecret().text;
    const stranger = newWebhookSecret().text;
    const { exchange, queue } = await rabbit.topology();
    const natsSink = createNatsSink({
      servers: nats.url,
      subjectPrefix: 'ledger.feed',
      stream: 'LEDGER_FEED',
    });
    const rabbitSink = createRabbitMqSink({ url: RABBITMQ_URL, exchange });
    sinks.push(natsSink, rabbitSink);

    // NATS first (the sink makes the stream the consumer reads): 1, 2, 2 again, 3 unsigned-by-us.
    for (const message of [
      signedEvent(1, secret),
      signedEvent(2, secret, 'quarantine.opened'),
      signedEvent(2, secret, 'quarantine.opened'),
      signedEvent(3, stranger),
    ])
      expect(await natsSink.send(message, TIMEOUT_MS)).toMatchObject({ ok: true });

    const consumer = runExample({
      LEDGER_DATABASE_URL: ledger.url,
      NATS_URL: nats.url,
      NATS_STREAM: 'LEDGER_FEED',
      AMQP_URL: RABBITMQ_URL,
      AMQP_EXCHANGE: exchange,
      AMQP_QUEUE: queue,
      AMQP_USER: 'guest',
      AMQP_PASSWORD: 'guest',
      FEED_BROKER_SECRET: secret,
    });
    try {
      await waitFor(() => /rabbitmq: reading/.test(consumer.output()), 'the RabbitMQ reader');
      // RabbitMQ: 4, 1 again (it came by NATS: stored once whichever way), 5 by a stranger.
      for (const message of [
        signedEvent(4, secret),
        signedEvent(1, secret),
        signedEvent(5, stranger),
      ])
        expect(await rabbitSink.send(message, TIMEOUT_MS)).toEqual({ ok: true });

      await waitFor(
        async () => (await storedIds()).length === 3 && /evt_5/.test(consumer.output()),
        'the ledger to hold evt_1, evt_2, evt_4 and evt_5 to be refused',
        20_000,
      );
      expect(await storedIds()).toEqual(['evt_1', 'evt_2', 'evt_4']);
      expect(
        await ledger.query(`SELECT amount::text FROM ledger_events WHERE event_id = 'evt_4'`),
      ).toEqual([{ amount: '12345678901.4' }]);
      const refusals = consumer
        .output()
        .split('\n')
        .filter((line) => line.includes('message refused'))
        .map((line) => JSON.parse(line) as { via: string; messageId: string; reason: string });
      expect(refusals).toEqual([
        expect.objectContaining({
          via: 'nats',
          messageId: 'evt_3',
          reason: 'signature does not verify',
        }),
        expect.objectContaining({
          via: 'rabbitmq',
          messageId: 'evt_5',
          reason: 'signature does not verify',
        }),
      ]);

      // Everything acknowledged (refusals terminated / rejected): nothing left to deliver.
      const nc = await connect({ servers: nats.url });
      try {
        const manager = await jetstreamManager(nc);
        await waitFor(
          async () => {
            const info = await manager.consumers.info('LEDGER_FEED', 'ledger');
            return info.num_ack_pending === 0 && info.num_pending === 0;
          },
          'the NATS consumer to have acknowledged everything',
          10_000,
        );
      } finally {
        await nc.close();
      }
      expect((await rabbit.channel.checkQueue(queue)).messageCount).toBe(0);
    } finally {
      consumer.child.kill('SIGTERM');
      expect(await exitWithin(consumer, 15_000)).toBe(0);
    }
  });
});
