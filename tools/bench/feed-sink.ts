import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What `--feed-endpoints` points the endpoints at: a consumer that reads each POST and answers
 * 204 at once, so the receiver's relays do their whole job (fan-out, claim, render, sign, POST,
 * record the attempt) and nothing waits on a slow consumer.
 */
export async function startFeedSink(): Promise<{
  url: string;
  /** POSTs answered so far: whether the relays kept up is in the report. */
  received(): number;
  close(): Promise<void>;
}> {
  let received = 0;
  const server = createServer((request, response) => {
    received += 1;
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/feed`,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
