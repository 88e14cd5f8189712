import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * A raw HTTP/1.1 connection to 127.0.0.1 over node:net, so nothing between the test and the
 * server fixes the bytes: records what the server sent and when it closed.
 */
export async function rawConnection(port: number) {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const opened = performance.now();
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (received += chunk));
  // Writing after the server has cut us off fails; that is the expected outcome, not an error.
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => resolve(performance.now() - opened)),
  );
  return {
    socket,
    received: () => received,
    write: (bytes: string | Buffer) => socket.write(bytes),
    /** One byte every `everyMs` until all are sent or the connection is gone. */
    async dribble(bytes: Buffer, everyMs: number) {
      for (const byte of bytes) {
        if (socket.destroyed) return;
        socket.write(Buffer.from([byte]));
        await delay(everyMs);
      }
    },
    /** Ms from connecting to the server closing; undefined when still open after `limitMs`. */
    closedWithin: (limitMs: number) => Promise.race([closed, delay(limitMs).then(() => undefined)]),
    /** Resolves true once `text` has been received, false if `limitMs` passes first. */
    async receivedWithin(text: string, limitMs: number): Promise<boolean> {
      const deadline = performance.now() + limitMs;
      while (!received.includes(text)) {
        if (performance.now() > deadline) return false;
        await delay(10);
      }
      return true;
    },
    destroy: () => socket.destroy(),
  };
}

export type RawConnection = Awaited<ReturnType<typeof rawConnection>>;

/** Status codes of every response in what the server sent, in order. */
export function statuses(received: string): number[] {
  return [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
}
