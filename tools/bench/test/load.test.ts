import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryPool, type DeliveryPool } from '../deliveries.ts';
import { runLoad } from '../load.ts';

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

  it('when run from a later first delivery, then the deliveries sent start there', async () => {
    const target = await recordingServer();
    server = target.server;
    await runLoad({
      url: target.url,
      pid: process.pid,
      pool,
      first: 100,
      reuseDeliveries: false,
      amount: 50,
      connections: 5,
    });
    const expected = Array.from({ length: 50 }, (_, i) => pool.at(100 + i).headers.Webhookid);
    expect(target.arrivals.map((a) => a.webhookId).sort()).toEqual(expected.sort());
  });

  it('when the server answers after 20 ms, then the latencies include the wait and its CPU is read from /proc', async () => {
    const target = await recordingServer(20);
    server = target.server;
    const result = await runLoad({
      url: target.url,
      pid: process.pid,
      pool,
      reuseDeliveries: false,
      amount: 40,
      connections: 4,
    });
    expect(result.latencyMs.p50).toBeGreaterThanOrEqual(19);
    expect(result.latencyMs.p99).toBeGreaterThanOrEqual(result.latencyMs.p50);
    expect(result.latencyMs.max).toBeGreaterThanOrEqual(result.latencyMs.p99);
    // The "server" is this process: it spent some CPU, at most all cores for the whole run.
    expect(result.serverCpuSeconds).toBeGreaterThanOrEqual(0);
    expect(result.serverCpuSeconds).toBeLessThan(result.elapsedSeconds * 64 + 0.05);
    expect(result.okPerSecond).toBeCloseTo(40 / result.elapsedSeconds);
  });
});
