import type { Server } from 'node:http';

/** Closes a server now: open (keep-alive) connections are dropped rather than waited for. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
