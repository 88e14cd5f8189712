import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KeyObject } from 'node:crypto';
import { providerHex, PUBLIC_KEY_PATH } from '../../src/lib/platform-key.ts';

export interface KeyServer {
  /** The full key URL, for SIGNING_KEY_URL. */
  url: string;
  /** Serves this key from now on (a rotation). */
  serve(publicKey: KeyObject): void;
  /** Answers 503 until the next serve(): the platform's endpoint being unavailable. */
  down(): void;
  requests(): number;
  close(): Promise<void>;
}

/**
 * `GET /public/v1/certificate/public-key` as the platform serves it: no authentication, the key
 * as upper-case hex DER PKCS#1 RSAPublicKey, `application/octet-stream`. Anything else is 404.
 * Without a key (none given yet, or down()) the key path answers 503.
 */
export async function startKeyServer(
  publicKey: KeyObject | undefined,
  options: { port: number; host: string },
): Promise<KeyServer> {
  let hex = publicKey && providerHex(publicKey);
  let count = 0;
  const server = createServer((req, res) => {
    count += 1;
    if (req.method !== 'GET' || req.url !== PUBLIC_KEY_PATH) {
      res.writeHead(404).end();
      return;
    }
    if (hex === undefined) {
      res.writeHead(503).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(hex);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}${PUBLIC_KEY_PATH}`,
    serve: (key) => {
      hex = providerHex(key);
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
