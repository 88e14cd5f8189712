import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryPool, type DeliveryPool } from '../core/deliveries.ts';
import { runLoad } from '../core/load.ts';

/** A local server that records when each delivery arrived and which Webhookid it carried. */
async function recordingServer(delayMs = 0) {
  const arrivals: { at: number; webhookId: string }[] = [];
  const server = createServer((req, res) => {
    arrivals.push({ at: performance.now(), webhookId: String(req.headers.webhookid) });
    req.resume();
    req.on('end', () => setTimeout(() => res.end('{"status":"Ok"}'), delayMs));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, arrivals, url: `http://127.0.0.1:${port}` };
}

/** Most arrivals inside any window of `ms` milliseconds. */
function densestWindow(times: number[], ms: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let start = 0, end = 0; end < sorted.length; end += 1) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) > ms) start += 1;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

let pool: DeliveryPool;
let server: Server | undefined;

beforeAll(async () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  pool = createDeliveryPool({
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    secret: 'Basic c2VjcmV0',
  });
  await pool.ensure(400);
});

afterEach(() => {
  server?.close();
  server = undefined;
});

describe('runLoad', () => {
  it('when run for a fixed amount, then each request carries its own delivery and all are answered', async () => {
    const target = await recordingServer();
    server = target.server;
    const result = await runLoad({
      url: target.url,
      pid: process.pid,
      pool,
      reuseDeliveries: false,
      amount: 300,
      connections: 8,
    });
    expect(result).toMatchObject({ sent: 300, ok: 300, non2xx: 0, errors: 0, reusedDeliveries: 0 });
    expect(result.statusCounts).toEqual({ '200': 300 });
    expect(new Set(target.arrivals.map((a) => a.webhookId)).size).toBe(300);
  });

  it('when the duration ends with requests in flight, then they are answered and counted before the run ends', async () => {
    const target = await recordingServer(50);
    server = target.server;
    const result = await runLoad({
      url: target.url,
      pid: process.pid,
      pool,
      reuseDeliveries: true,
      amount: 1_000_000,
      durationSeconds: 0.5,
      connections: 8,
    });
    expect(result.elapsedSeconds).toBeGreaterThan(0.45);
    expect(result.elapsedSeconds).toBeLessThan(0.8);
    expect(result.ok).toBeGreaterThan(0);
    expect(result.ok).toBe(target.arrivals.length);
    expect(result.sent).toBe(target.arrivals.length);
  });

  it('when the pool is smaller than the amount and reuse is not allowed, then the re-sent deliveries are counted', async () => {
    const target = await recordingServer();
    server = target.server;
    const result = await runLoad({
      url: target.url,
      pid: process.pid,
      pool,
      reuseDeliveries: false,
      amount: pool.size + 25,
      connections: 5,
    });
    expect(result.reusedDeliveries).toBe(25);
  });

  it('when paced smoothly at 200/s, then no 50 ms window holds much more than its 10 arrivals', async () => {
    const target = await recordingServer();
    server = target.server;
    const result = await runLoad({
      url: target.url,
      pid: process.pid,
      pool,
      reuseDeliveries: false,
      amount: 200,
      connections: 10,
      rate: { perSecond: 200, pacing: 'smooth' },
    });
    expect(result.ok).toBe(200);
    expect(result.elapsedSeconds).toBeGreaterThan(0.9);
    expect(
      densestWindow(
        target.arrivals.map((a) => a.at),
        50,
      ),
    ).toBeLessThanOrEqual(16);
  });

  it("when paced by autocannon's overallRate, then each second's budget arrives as one burst", async () => {
    const target = await recordingServer();
    server = target.server;
    await runLoad({
      url: target.url,
      pid: process.pid,
      pool,
      reuseDeliveries: false,
      amount: 200,
      connections: 10,
      rate: { perSecond: 200, pacing: 'autocannon' },
    });
    expect(
      densestWindow(
        target.arrivals.map((a) => a.at),
        50,
      ),
    ).toBeGreaterThanOrEqual(100);
  });

  it('when a slow server holds back the next send, then the wait counts in the latency', async () => {
    const target = await recordingServer(30);
    server = target.server;
    const result = await runLoad({
      url: target.url,
      pid: process.pid,
      pool,
      reuseDeliveries: false,
      amount: 20,
      connections: 1,
      rate: { perSecond: 100, pacing: 'smooth' },
    });
    // Each response takes ~30 ms but sends were due every 10 ms: the 20th waited ~380 ms more.
    expect(result.latencyMs.p50).toBeGreaterThan(150);
    expect(result.latencyMs.max).toBeGreaterThan(350);
  });
});
