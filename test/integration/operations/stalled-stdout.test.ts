import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../tools/common/free-port.ts';
import { answers, exitWithin, runMain, waitFor } from '../../support/receiver-process.ts';
import { generateSigningKeyPair, publicKeyAsProviderHex } from '../../support/signing.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * A log reader that stops reading (a stuck collector, a full pipe) must not hold the receiver
 * hostage: log lines beyond a bounded buffer are dropped and counted, and SIGTERM still ends the
 * process within the shutdown timeout.
 */

const REQUESTS = 3000;
const CONCURRENCY = 8;
const LOG_BUFFER_BYTES = 64 * 1024;
const SHUTDOWN_TIMEOUT_MS = 2000;

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

function metricValue(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

/** Deliveries with a wrong secret: answered 401 without touching the database, one log line each. */
async function sendUnauthorised(base: string, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const res = await fetch(`${base}/webhooks/NPPReceivePayment`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorisation: 'Basic d3Jvbmc=' },
        body: '{}',
      });
      expect(res.status).toBe(401);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

describe('the service process with a stalled stdout', () => {
  it('when stdout is never read, then memory stays bounded (lines dropped and counted) and SIGTERM exits within the shutdown timeout', async () => {
    const signer = await generateSigningKeyPair();
    const port = await freePort();
    const metricsPort = await freePort();
    const service = runMain(
      'serve',
      {
        PORT: String(port),
        HOST: '127.0.0.1',
        METRICS_PORT: String(metricsPort),
        DATABASE_URL: database.url,
        SIGNING_KEY: publicKeyAsProviderHex(signer.publicKey),
        WEBHOOK_SECRETS: 'Basic c3RhbGxlZC1zdGRvdXQ=',
        LOG_BUFFER_BYTES: String(LOG_BUFFER_BYTES),
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      },
      { stallStdout: true },
    );
    try {
      const base = `http://127.0.0.1:${port}`;
      const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
      await waitFor(() => answers(`${base}/readyz`), 'the service to be ready', 60_000);
      // About 300 bytes of log per request: far more than the pipe and the buffer together hold.
      await sendUnauthorised(base, REQUESTS);
      const metrics = await (await fetch(metricsUrl)).text();
      const dropped = metricValue(metrics, 'log_lines_dropped_total');
      const buffered = metricValue(metrics, 'log_buffer_bytes');
      console.info(
        `stalled stdout: ${REQUESTS} requests, ${dropped} lines dropped, ${buffered} B buffered`,
      );
      const signalledAt = Date.now();
      service.child.kill('SIGTERM');
      const code = await exitWithin(service, SHUTDOWN_TIMEOUT_MS + 10_000);
      console.info(`stalled stdout: SIGTERM exit ${code} after ${Date.now() - signalledAt} ms`);
      expect(code).not.toBe('still running');
      // Unbounded, every line stays in memory; bounded, lines beyond the buffer are dropped.
      expect(buffered).toBeLessThanOrEqual(LOG_BUFFER_BYTES);
      expect(dropped).toBeGreaterThan(REQUESTS / 4);
    } finally {
      service.child.kill('SIGKILL');
    }
  }, 120_000);
});
