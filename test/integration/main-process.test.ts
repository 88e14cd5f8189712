import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyBytes, freshWebhookId } from '../support/deliveries.ts';
import { freePort } from '../support/free-port.ts';
import { nppPayment } from '../support/sample-bodies.ts';
import {
  generateSigningKeyPair,
  publicKeyAsProviderHex,
  signBody,
  type SigningKeyPair,
} from '../support/signing.ts';

/**
 * The real entry point as an operator runs it: `src/main.ts` in its own process, configured only
 * through the environment, on the embedded Postgres, stopped with SIGTERM.
 */

const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));
const SECRET = 'Basic bWFpbi1wcm9jZXNzLXRlc3Q=';
const FEED_TOKEN = 'main-process-feed-token-0123456789';

let signer: SigningKeyPair;
let dataDir: string;

beforeAll(async () => {
  signer = await generateSigningKeyPair();
  dataDir = mkdtempSync(path.join(tmpdir(), 'receiver-main-'));
  chmodSync(dataDir, 0o755);
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function run(script: string, env: Record<string, string>): Running {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: PROJECT_DIR,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(predicate: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the service process', () => {
  it('when started with no DATABASE_URL, then it serves on the embedded Postgres, stores a delivery, hands it on through GET /feed on its own port, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const feedPort = await freePort();
    const service = run('src/main.ts', {
      FEED_TOKEN: FEED_TOKEN,
      FEED_PORT: String(feedPort),
      PORT: String(port),
      HOST: '127.0.0.1',
      EMBEDDED_POSTGRES_DIR: path.join(dataDir, 'pg'),
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
      SIGNING_KEY: publicKeyAsProviderHex(signer.publicKey),
      WEBHOOK_SECRETS: SECRET,
    });
    try {
      await waitFor(
        () => service.output().includes('receiver listening'),
        'the service to listen',
        60_000,
      );
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/readyz`)).status).toBe(200);

      const body = bodyBytes(nppPayment());
      const res = await fetch(`${base}/webhooks/NPPReceivePayment`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Webhookid: freshWebhookId(),
          Authorisation: SECRET,
          'Verification-Signature': signBody(body, signer.privateKey),
        },
        body,
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        status: 'Ok',
        statusDescription: 'Delivery stored',
      });

      const auth = { Authorization: `Bearer ${FEED_TOKEN}` };
      const feed = await fetch(`http://127.0.0.1:${feedPort}/feed?wait=20`, { headers: auth });
      expect(feed.status).toBe(200);
      const page = (await feed.json()) as { events: { type: string }[]; next: string };
      expect(page.events.map((e) => e.type)).toEqual(['payment.received']);
      expect(page.next).toBe('1');
      // Not on the public listener.
      expect((await fetch(`${base}/feed`, { headers: auth })).status).toBe(404);

      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
      expect(service.output()).toContain('"msg":"stopped"');
      expect(service.output()).not.toContain('bWFpbi1wcm9jZXNzLXRlc3Q');
      expect(service.output()).not.toContain(FEED_TOKEN);
    } finally {
      service.child.kill('SIGKILL');
    }
  }, 90_000);

  it('when configuration is bad, then it refuses to start and names every bad variable', async () => {
    const service = run('src/main.ts', { PORT: 'eighty', PROVIDER_ENV: 'staging' });
    expect(await service.exited).toBe(2);
    expect(service.output()).toMatch(/PORT: /);
    expect(service.output()).toMatch(/PROVIDER_ENV: /);
    expect(service.output()).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('when SIGNING_KEY is not a key, then it refuses to start naming SIGNING_KEY', async () => {
    const service = run('src/main.ts', {
      SIGNING_KEY: 'not a key',
      DATABASE_URL: 'postgres://127.0.0.1:1/none',
    });
    expect(await service.exited).toBe(2);
    expect(service.output()).toMatch(/SIGNING_KEY: /);
  });
});
