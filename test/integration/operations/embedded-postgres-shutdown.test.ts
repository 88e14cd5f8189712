import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyBytes, freshWebhookId } from '../../support/deliveries.ts';
import { freePort } from '../../../tools/common/free-port.ts';
import { answers, runMain, waitFor, type RunningProcess } from '../../support/receiver-process.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import {
  generateSigningKeyPair,
  publicKeyAsProviderHex,
  signBody,
  type SigningKeyPair,
} from '../../support/signing.ts';

/**
 * `npm start` on the embedded Postgres, as a terminal runs it: Ctrl-C sends SIGINT to the whole
 * foreground process group. Deliveries in flight must still be stored (Postgres stops last), and
 * a run killed outright (SIGKILL) must not keep the next one from starting.
 */

const SECRET = 'Basic ZW1iZWRkZWQtc2h1dGRvd24=';
const IN_FLIGHT = 4;

let signer: SigningKeyPair;
let dataDir: string;
beforeAll(async () => {
  signer = await generateSigningKeyPair();
  dataDir = mkdtempSync(path.join(tmpdir(), 'receiver-embedded-'));
  chmodSync(dataDir, 0o755);
});
afterAll(() => {
  // Whatever a failed run left: no Postgres outlives the test.
  const lock = path.join(dataDir, 'pg', 'cluster', 'postmaster.pid');
  if (existsSync(lock)) signalQuietly(Number(readFileSync(lock, 'utf8').split('\n')[0]), 'SIGQUIT');
  rmSync(dataDir, { recursive: true, force: true });
});

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone already
  }
}

/** A delivery whose body is only half sent: in flight until `finish()`. */
function deliveryInFlight(port: number, webhookId: string) {
  const body = bodyBytes(nppPayment());
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/webhooks/NPPReceivePayment',
    headers: {
      'Content-Type': 'application/json',
      'Content-Length': String(body.length),
      Webhookid: webhookId,
      Authorisation: SECRET,
      'Verification-Signature': signBody(body, signer.privateKey),
    },
  });
  const answer = new Promise<number | string>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (error) => resolve(error.message));
  });
  req.write(body.subarray(0, 10));
  return { answer, finish: () => req.end(body.subarray(10)) };
}

describe('the service on the embedded Postgres', () => {
  it('when Ctrl-C reaches the whole process group, then deliveries in flight are stored; when the receiver is killed or a stale lock file is left, then the next start succeeds', async () => {
    const port = await freePort();
    const postgresPort = await freePort();
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: 'off',
      EMBEDDED_POSTGRES_DIR: path.join(dataDir, 'pg'),
      EMBEDDED_POSTGRES_PORT: String(postgresPort),
      SIGNING_KEY: publicKeyAsProviderHex(signer.publicKey),
      WEBHOOK_SECRETS: SECRET,
      SHUTDOWN_TIMEOUT_MS: '15000',
    };
    const started: RunningProcess[] = [];
    const start = async (processGroup: boolean) => {
      const service = runMain('serve', env, { processGroup });
      started.push(service);
      await waitFor(
        async () => {
          if (service.child.exitCode !== null) {
            throw new Error(`exited during start:\n${service.output()}`);
          }
          return answers(`http://127.0.0.1:${port}/readyz`);
        },
        'the service to be ready',
        60_000,
      );
      return service;
    };
    try {
      // 1. Ctrl-C in a terminal: SIGINT to the receiver and everything in its process group.
      const first = await start(true);
      const webhookIds = Array.from({ length: IN_FLIGHT }, () => freshWebhookId());
      const deliveries = webhookIds.map((id) => deliveryInFlight(port, id));
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.kill(-(first.child.pid as number), 'SIGINT');
      // Long enough for a Postgres that got the signal too to be gone.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      for (const delivery of deliveries) delivery.finish();
      expect(await Promise.all(deliveries.map((delivery) => delivery.answer))).toEqual(
        webhookIds.map(() => 200),
      );
      expect(await first.exited).toBe(0);

      // 2. The receiver killed outright: its Postgres is left running on the data dir.
      const second = await start(false);
      second.child.kill('SIGKILL');
      await second.exited;
      const lock = path.join(dataDir, 'pg', 'cluster', 'postmaster.pid');
      expect(existsSync(lock)).toBe(true);

      // 3. The next start gets past it, and finds what was stored before Ctrl-C.
      const third = await start(false);
      expect(third.output()).toContain('stopping an embedded postgres left by a killed run');
      const password = readFileSync(path.join(dataDir, 'pg', 'password'), 'utf8').trim();
      const client = new pg.Client({
        connectionString: `postgres://postgres:${encodeURIComponent(password)}@localhost:${postgresPort}/postgres`,
      });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: string }>(
          'SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ANY($1::bigint[])',
          [webhookIds],
        );
        expect(Number(rows[0]?.n)).toBe(IN_FLIGHT);
      } finally {
        await client.end();
      }
      third.child.kill('SIGTERM');
      expect(await third.exited).toBe(0);
      // Stopped with the receiver: nothing left running on the data dir.
      expect(existsSync(lock)).toBe(false);

      // 4. A stale lock file whose pid now belongs to another process (here: this test's own).
      writeFileSync(lock, `${process.pid}\n${path.dirname(lock)}\n`);
      const fourth = await start(false);
      expect(fourth.output()).toContain('removing a stale embedded postgres lock file');
      fourth.child.kill('SIGTERM');
      expect(await fourth.exited).toBe(0);
    } finally {
      for (const service of started) service.child.kill('SIGKILL');
    }
  }, 180_000);
});
