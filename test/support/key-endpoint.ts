import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KeyObject } from 'node:crypto';
import { publicKeyAsProviderHex } from './signing.ts';

/**
 * A local stand-in for the platform's `GET /public/v1/certificate/public-key`: hex DER PKCS#1,
 * application/octet-stream. Tests swap the key (rotation) or take the endpoint down.
 */
export interface KeyEndpoint {
  url: string;
  serve(key: KeyObject): void;
  down(): void;
  requests(): number;
  close(): Promise<void>;
}

export async function startKeyEndpoint(initial?: KeyObject): Promise<KeyEndpoint> {
  let hex = initial && publicKeyAsProviderHex(initial);
  let count = 0;
  const server: Server = createServer((req, res) => {
    count += 1;
    if (req.url !== '/public/v1/certificate/public-key' || hex === undefined) {
      res.writeHead(503).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(hex);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/public/v1/certificate/public-key`,
    serve: (key) => {
      hex = publicKeyAsProviderHex(key);
    },
    down: () => {
      hex = undefined;
    },
    requests: () => count,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
