import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP pass-through placed between the app and Postgres, so a test can cut the database off
 * (every connection dropped, new ones refused) and bring it back, like a network fault or a
 * database failover, without touching the real server.
 */
export interface TcpProxy {
  port: number;
  /** Drop every open connection and refuse new ones until `restore`. */
  cut(): void;
  /**
   * Drop every open connection and leave new ones unanswered until `restore`, like a database
   * host that stops responding: a client waits out its connection timeout.
   */
  silence(): void;
  /**
   * Stop forwarding on every open connection without closing it, like a peer whose packets are
   * dropped (no FIN, no RST): both ends wait. New connections are forwarded as usual; frozen
   * ones stay frozen until `close`.
   */
  freeze(): void;
  restore(): void;
  /** Connections accepted so far (attempts, answered or not). */
  readonly accepted: number;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const pairs = new Set<readonly [Socket, Socket]>();
  let mode: 'open' | 'cut' | 'silent' = 'open';
  let accepted = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server: Server = createServer((client) => {
    track(client);
    accepted += 1;
    if (mode === 'cut') client.destroy();
    // A silent connection is reset by the client when it gives up: not an error here.
    if (mode === 'silent') client.on('error', () => {});
    if (mode !== 'open') return;
    const upstream = connect(targetPort, targetHost);
    track(upstream);
    client.pipe(upstream).pipe(client);
    const pair = [client, upstream] as const;
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut: () => {
      mode = 'cut';
      for (const socket of sockets) socket.destroy();
    },
    silence: () => {
      mode = 'silent';
      for (const socket of sockets) socket.destroy();
    },
    freeze: () => {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
      pairs.clear();
    },
    restore: () => {
      mode = 'open';
    },
    get accepted() {
      return accepted;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
