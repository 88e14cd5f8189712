import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';

/**
 * The two edge attacks of the "nothing lost at the edges" issue, as raw sockets against
 * 127.0.0.1 only: headers and then a trickle (slots), and small gzip bodies that inflate to
 * megabytes and then stall (memory). Every socket is tracked so the caller can close them all.
 */

export interface OpenSockets {
  readonly sockets: Socket[];
  /** Connections the server has closed so far. */
  closedCount(): number;
  closeAll(): void;
}

function track(sockets: Socket[], timers: NodeJS.Timeout[]): OpenSockets {
  return {
    sockets,
    closedCount: () => sockets.filter((socket) => socket.destroyed).length,
    closeAll() {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
    },
  };
}

async function open(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.on('data', () => {});
  await once(socket, 'connect');
  return socket;
}

/** `count` deliveries without credentials whose body arrives one byte per second. */
export async function openTricklers(port: number, count: number): Promise<OpenSockets> {
  const sockets: Socket[] = [];
  const timers: NodeJS.Timeout[] = [];
  for (let i = 0; i < count; i += 1) {
    const socket = await open(port);
    socket.write(
      'POST /webhooks/NPPReceivePayment HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        `Content-Type: application/json\r\nWebhookid: ${i + 1}\r\nContent-Length: 100000\r\n\r\n{`,
    );
    timers.push(setInterval(() => socket.write(' '), 1000));
    sockets.push(socket);
  }
  return track(sockets, timers);
}

/** About 4 KB of gzip that inflates to just under `inflatedBytes`, all but its last bytes. */
export function bombBody(inflatedBytes: number): Buffer {
  return gzipSync(Buffer.alloc(inflatedBytes - 1024, 0x20), { level: 9 });
}

/** `count` unauthenticated gzip bodies, all sent but for the last 16 bytes, then silence. */
export async function openGzipStallers(port: number, count: number, bomb: Buffer) {
  const sockets: Socket[] = [];
  for (let i = 0; i < count; i += 1) {
    const socket = await open(port);
    socket.write(
      'POST /webhooks/NPPReceivePayment HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        'Content-Type: application/json\r\nContent-Encoding: gzip\r\n' +
        `Webhookid: ${i + 1}\r\nContent-Length: ${bomb.length}\r\n\r\n`,
    );
    socket.write(bomb.subarray(0, -16));
    sockets.push(socket);
  }
  return track(sockets, []);
}
