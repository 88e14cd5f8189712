import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

export interface StreamMessage {
  subject: string;
  seq: number;
  headers: Record<string, string | undefined>;
  body: string;
}

/** Every message of `stream`, in stream order, read by an ordered JetStream consumer from the start. */
export async function readStream(nc: NatsConnection, stream: string): Promise<StreamMessage[]> {
  const total = (await (await jetstreamManager(nc)).streams.info(stream)).state.messages;
  if (total === 0) return [];
  const consumer = await jetstream(nc).consumers.get(stream);
  const messages: StreamMessage[] = [];
  for await (const message of await consumer.fetch({ max_messages: total, expires: 5000 })) {
    messages.push({
      subject: message.subject,
      seq: message.seq,
      headers: Object.fromEntries(
        (message.headers?.keys() ?? []).map((key) => [key, message.headers?.get(key)]),
      ),
      body: message.string(),
    });
    if (messages.length === total) break;
  }
  return messages;
}
