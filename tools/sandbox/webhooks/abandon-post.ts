import http from 'node:http';
import https from 'node:https';

/** How long after the last byte is sent the connection is dropped without reading an answer. */
const ABANDON_AFTER_MS = 100;

/**
 * The `webhook-timeout` fault: the whole delivery is sent, but the sandbox drops the connection
 * shortly after without reading the answer, as the platform does when a subscriber is too slow.
 * The subscriber may well have stored it; the retry then is a redelivery of the same Webhookid.
 */
export function postAndAbandon(
  url: URL,
  headers: Record<string, string>,
  body: Buffer,
): Promise<void> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'Content-Length': String(body.length) },
    });
    const drop = () => {
      req.destroy();
      resolve();
    };
    req.on('response', (res) => res.resume());
    req.on('error', drop);
    req.end(body, () => setTimeout(drop, ABANDON_AFTER_MS).unref());
  });
}
