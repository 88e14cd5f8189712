import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createNatsSink, type NatsSinkOptions } from '../../../../src/feed/sinks/nats-sink.ts';
import type { Sink } from '../../../../src/feed/sinks/sink.ts';
import { startTcpProxy } from '../../../../tools/common/tcp-proxy.ts';
import { feedMessage, resendFailed, sendStream } from '../../../support/broker-messages.ts';
import { readStream } from '../../../support/nats-stream.ts';
import { startNatsServer, type TestNatsServer } from '../../../support/nats-server.ts';

/**
 * The NATS JetStream sink against a nats-server of this file's own (127.0.0.1, a temporary
 * store): what arrives in the stream, deduplication by `Nats-Msg-Id`, and the two faults that
 * matter: the server killed mid-stream (SIGKILL, then started on the same store) and the
 * connection cut mid-stream. In both, every send that answered ok is in the stream, sends during
 * the outage fail, and sends succeed again afterwards.
 */

const TIMEOUT_MS = 2000;

let server: TestNatsServer;
const sinks: Sink[] = [];
const clients: NatsConnection[] = [];

beforeAll(async () => {
  server = await startNatsServer();
});
afterEach(async () => {
  for (const sink of sinks.splice(0)) await sink.close();
  for (const client of clients.splice(0)) await client.close();
});
afterAll(async () => {
  await server.stop();
});

let streams = 0;
/**
 * A sink onto a stream and subject prefix of its own (made by the sink on first use, unless
 * `noStream`: then the sink names none).
 */
function newSink(overrides: Partial<NatsSinkOptions> = {}, noStream = false) {
  streams += 1;
  const stream = `FEED_TEST_${streams}`;
  const options = {
    servers: server.url,
    subjectPrefix: `test${streams}.feed`,
    ...(!noStream && { stream }),
    ...overrides,
  };
  const sink = createNatsSink(options);
  sinks.push(sink);
  return { sink, stream, prefix: options.subjectPrefix };
}

async function client(url = server.url) {
  const nc = await connect({ servers: url });
  clients.push(nc);
  return nc;
}

/** The ids (`Nats-Msg-Id`) in the stream, each with the number of copies stored. */
async function idsInStream(stream: string) {
  const counts = new Map<string, number>();
  for (const message of await readStream(await client(), stream)) {
    const id = String(message.headers['Nats-Msg-Id']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

describe('the NATS JetStream sink', () => {
  it('when events are sent, then the stream holds each under <prefix>.<type> with its id as Nats-Msg-Id, its Standard Webhooks headers, a JSON content type and the exact body; a resend of an id is stored once and answered as a duplicate', async () => {
    const { sink, stream, prefix } = newSink();
    const first = feedMessage(1);
    const second = feedMessage(2, 'quarantine.opened');

    const outcomes = [await sink.send(first, TIMEOUT_MS), await sink.send(second, TIMEOUT_MS)];
    expect(outcomes).toEqual([
      { ok: true, excerpt: JSON.stringify({ stream, seq: 1 }) },
      { ok: true, excerpt: JSON.stringify({ stream, seq: 2 }) },
    ]);
    expect(await sink.send(first, TIMEOUT_MS)).toEqual({
      ok: true,
      excerpt: JSON.stringify({ stream, seq: 1, duplicate: true }),
    });

    const stored = await readStream(await client(), stream);
    expect(stored).toEqual(
      [first, second].map((message, index) => ({
        subject: `${prefix}.${message.type}`,
        seq: index + 1,
        headers: {
          ...message.headers,
          'content-type': 'application/json',
          'Nats-Msg-Id': message.id,
          // The sink asks the server to refuse the message if another stream captured it.
          'Nats-Expected-Stream': stream,
        },
        body: message.body,
      })),
    );
    const info = await (await jetstreamManager(await client())).streams.info(stream);
    expect(info.config.subjects).toEqual([`${prefix}.>`]);
    expect(info.config.duplicate_window).toBeGreaterThanOrEqual(120 * 1e9);
  });

  it('when no stream captures the subject, then a send fails (nothing was stored) and the sink keeps working once one does', async () => {
    const prefix = 'nostream.feed';
    const { sink } = newSink({ subjectPrefix: prefix }, true);
    const outcome = await sink.send(feedMessage(1), TIMEOUT_MS);
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? '' : outcome.error).toMatch(/^NATS: .*no responders/i);

    await (
      await jetstreamManager(await client())
    ).streams.add({ name: 'NOSTREAM', subjects: [`${prefix}.>`] });
    expect(await sink.send(feedMessage(1), TIMEOUT_MS)).toMatchObject({ ok: true });
  });

  it('when the server is unreachable, then a send fails within its timeout and says why', async () => {
    const { sink } = newSink({ servers: 'nats://127.0.0.1:1' });
    const started = Date.now();
    const outcome = await sink.send(feedMessage(1), TIMEOUT_MS);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 500);
    expect(outcome).toMatchObject({ ok: false, error: expect.stringMatching(/^NATS: /) });
  });

  it('when the server is killed (SIGKILL) mid-stream of 200 sends and started again on its store, then every send that answered ok is in the stream, sends during the outage fail, and afterwards every event is stored exactly once', async () => {
    const { sink, stream } = newSink();
    const send = (message: ReturnType<typeof feedMessage>) => sink.send(message, TIMEOUT_MS);
    const run = await sendStream(send, {
      count: 200,
      concurrency: 4,
      at: 80,
      midway: async () => {
        await server.kill();
        // Started again once the rest of the sends had their chance to fail.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await server.restart();
      },
    });
    expect(run.ok.size).toBeGreaterThanOrEqual(80);
    expect(run.failed.size).toBeGreaterThan(0);
    for (const error of run.failed.values()) expect(error).toMatch(/^NATS: /);

    const afterRestart = await idsInStream(stream);
    for (const id of run.ok) expect(afterRestart.has(id), id).toBe(true);

    await resendFailed(run, send);
    const final = await idsInStream(stream);
    expect(final.size).toBe(200);
    expect([...final.values()].every((copies) => copies === 1)).toBe(true);
  });

  it('when the connection is cut mid-stream of 200 sends (a proxy between sink and server), then every send that answered ok is in the stream, sends during the cut fail fast, and after it every event is stored exactly once', async () => {
    const proxy = await startTcpProxy('127.0.0.1', server.port);
    try {
      const { sink, stream } = newSink({ servers: `nats://127.0.0.1:${proxy.port}` });
      const send = (message: ReturnType<typeof feedMessage>) => sink.send(message, TIMEOUT_MS);
      const run = await sendStream(send, {
        count: 200,
        concurrency: 4,
        at: 80,
        midway: async () => {
          proxy.cut();
          await new Promise((resolve) => setTimeout(resolve, 1500));
          proxy.restore();
        },
      });
      expect(run.ok.size).toBeGreaterThanOrEqual(80);
      expect(run.failed.size).toBeGreaterThan(0);
      expect([...run.failed.values()].some((error) => /not connected/.test(error))).toBe(true);

      const afterCut = await idsInStream(stream);
      for (const id of run.ok) expect(afterCut.has(id), id).toBe(true);

      await resendFailed(run, send);
      const final = await idsInStream(stream);
      expect(final.size).toBe(200);
      expect([...final.values()].every((copies) => copies === 1)).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('when the server wants a token, then the sink sends the token it was given (and fails without it)', async () => {
    const guarded = await startNatsServer(['--auth', 'feed-test-token-0123456789']);
    try {
      const denied = createNatsSink({
        servers: guarded.url,
        subjectPrefix: 'auth.feed',
        stream: 'AUTH',
      });
      const allowed = createNatsSink({
        servers: guarded.url,
        subjectPrefix: 'auth.feed',
        stream: 'AUTH',
        credentials: { token: 'feed-test-token-0123456789' },
      });
      sinks.push(denied, allowed);
      expect(await denied.send(feedMessage(1), TIMEOUT_MS)).toMatchObject({
        ok: false,
        error: expect.stringMatching(/authorization/i),
      });
      expect(await allowed.send(feedMessage(1), TIMEOUT_MS)).toMatchObject({ ok: true });
    } finally {
      for (const sink of sinks.splice(0)) await sink.close();
      await guarded.stop();
    }
  });
});
