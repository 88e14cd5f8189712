import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';

/**
 * The edge attacks, as raw sockets against 127.0.0.1 only: headers and then a trickle (slots),
 * and small gzip bodies that inflate to megabytes and then stall (memory); each either without
 * credentials or presenting the shared secret (but never a valid signature: only the platform
 * can sign). Every socket is tracked so the caller can close them all.
 */

export interface OpenSockets {
  /** Connections the server has closed so far (including those later replaced). */
  closedCount(): number;
  /** Sockets opened in all, replacements included. */
  openedCount(): number;
  closeAll(): void;
}

export interface AttackOptions {
  /** Sent as `Authorisation` (the shared secret); none when undefined. */
  authorisation?: string | undefined;
  /**
   * Open a new socket in place of each one the server closes, `reconnectAfterMs` later, so
   * `count` attackers stay connected (a persistent attacker). At most `count` sockets at once.
   */
  reconnectAfterMs?: number | undefined;
}

const HOST = '127.0.0.1';

async function open(port: number): Promise<Socket> {
  const socket = connect(port, HOST);
  socket.on('error', () => {});
  socket.on('data', () => {});
  await once(socket, 'connect');
  return socket;
}

/**
 * Opens `count` sockets one after another, each started by `begin`; with reconnection, a socket
 * the server closes is replaced until `closeAll`.
 */
async function openMany(
  port: number,
  count: number,
  options: AttackOptions,
  begin: (socket: Socket, index: number) => NodeJS.Timeout | undefined,
): Promise<OpenSockets> {
  const live = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let opened = 0;
  let closedByServer = 0;
  let stopped = false;
  const start = async (index: number) => {
    const socket = await open(port).catch(() => undefined);
    if (socket === undefined || stopped) {
      socket?.destroy();
      return;
    }
    opened += 1;
    live.add(socket);
    const timer = begin(socket, index);
    if (timer) timers.add(timer);
    socket.once('close', () => {
      live.delete(socket);
      if (timer) {
        clearInterval(timer);
        timers.delete(timer);
      }
      if (stopped) return;
      closedByServer += 1;
      if (options.reconnectAfterMs === undefined) return;
      const again = setTimeout(() => {
        timers.delete(again);
        start(index).catch((error: unknown) => {
          console.error(`edge-attacks: socket ${index} not reopened:`, error);
        });
      }, options.reconnectAfterMs);
      timers.add(again);
    });
  };
  for (let i = 0; i < count; i += 1) await start(i);
  return {
    closedCount: () => closedByServer,
    openedCount: () => opened,
    closeAll() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of live) socket.destroy();
    },
  };
}

const credentials = (options: AttackOptions) =>
  options.authorisation === undefined ? '' : `Authorisation: ${options.authorisation}\r\n`;

/** `count` deliveries whose body (100 kB declared) arrives one byte per second. */
export function openTricklers(
  port: number,
  count: number,
  options: AttackOptions = {},
): Promise<OpenSockets> {
  return openMany(port, count, options, (socket, index) => {
    socket.write(
      `POST /webhooks/NPPReceivePayment HTTP/1.1\r\nHost: ${HOST}\r\n` +
        `Content-Type: application/json\r\nWebhookid: ${index + 1}\r\n${credentials(options)}` +
        'Content-Length: 100000\r\n\r\n{',
    );
    return setInterval(() => socket.write(' '), 1000);
  });
}

/** About 4 KB of gzip that inflates to just under `inflatedBytes`, all but its last bytes. */
export function bombBody(inflatedBytes: number): Buffer {
  return gzipSync(Buffer.alloc(inflatedBytes - 1024, 0x20), { level: 9 });
}

/** `count` gzip bodies, all sent but for the last 16 bytes, then silence. */
export function openGzipStallers(
  port: number,
  count: number,
  bomb: Buffer,
  options: AttackOptions = {},
): Promise<OpenSockets> {
  return openMany(port, count, options, (socket, index) => {
    socket.write(
      `POST /webhooks/NPPReceivePayment HTTP/1.1\r\nHost: ${HOST}\r\n` +
        'Content-Type: application/json\r\nContent-Encoding: gzip\r\n' +
        `Webhookid: ${index + 1}\r\n${credentials(options)}Content-Length: ${bomb.length}\r\n\r\n`,
    );
    socket.write(bomb.subarray(0, -16));
    return undefined;
  });
}
