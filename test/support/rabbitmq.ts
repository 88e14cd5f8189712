import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type Channel, type ChannelModel, type GetMessage } from 'amqplib';
import { waitFor } from './receiver-process.ts';

/**
 * The machine's RabbitMQ (127.0.0.1:5672, guest/guest: `.ci/run` starts it when it does not
 * answer) as the tests use it: an exchange and a durable queue bound to it of each test's own,
 * and the broker held for one test file at a time (one of them restarts it).
 */

export const RABBITMQ_URL = process.env.TEST_RABBITMQ_URL ?? 'amqp://127.0.0.1:5672';

const LOCK_DIR = path.join(tmpdir(), 'monoova-feed-rabbitmq-tests.lock');

/**
 * Holds the broker for this test file until `release`: files run side by side, and one of them
 * (rabbitmq-restart.test.ts) stops and starts the broker's application, which no other file's
 * connections would survive. A lock left by a process that died is taken over.
 */
export async function holdRabbitMq(timeoutMs = 180_000): Promise<() => void> {
  const owner = String(process.pid);
  await waitFor(
    () => {
      try {
        mkdirSync(LOCK_DIR);
        writeFileSync(path.join(LOCK_DIR, 'pid'), owner);
        return true;
      } catch {
        if (!holderAlive()) rmSync(LOCK_DIR, { recursive: true, force: true });
        return false;
      }
    },
    'the RabbitMQ test lock (another test file holds the broker)',
    timeoutMs,
  );
  return () => rmSync(LOCK_DIR, { recursive: true, force: true });
}

function holderAlive(): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(LOCK_DIR, 'pid'), 'utf8'));
  } catch {
    return true; // being written: the holder has only just made the directory
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface TestRabbitMq {
  model: ChannelModel;
  channel: Channel;
  /** A durable topic exchange and a durable queue bound to it (`pattern`), new names each time. */
  topology(pattern?: string): Promise<{ exchange: string; queue: string }>;
  /** Every message in `queue`, taken off it. */
  drain(queue: string): Promise<GetMessage[]>;
  /** Deletes what `topology` made, and closes the connection. */
  close(): Promise<void>;
}

export async function openTestRabbitMq(): Promise<TestRabbitMq> {
  const model = await connect(RABBITMQ_URL);
  // A broker restart (rabbitmq-restart.test.ts) ends this connection: not a crash of the file.
  model.on('error', () => {});
  const channel = await model.createChannel();
  channel.on('error', () => {});
  const made: { exchange: string; queue: string }[] = [];
  return {
    model,
    channel,
    topology: async (pattern = '#') => {
      const suffix = randomBytes(6).toString('hex');
      const names = { exchange: `feed-test-${suffix}`, queue: `feed-test-${suffix}` };
      made.push(names);
      await channel.assertExchange(names.exchange, 'topic', { durable: true });
      await channel.assertQueue(names.queue, { durable: true });
      await channel.bindQueue(names.queue, names.exchange, pattern);
      return names;
    },
    drain: async (queue) => {
      const messages: GetMessage[] = [];
      for (;;) {
        const message = await channel.get(queue, { noAck: true });
        if (!message) return messages;
        messages.push(message);
      }
    },
    close: async () => {
      for (const { exchange, queue } of made) {
        await channel.deleteQueue(queue);
        await channel.deleteExchange(exchange);
      }
      await model.close();
    },
  };
}
