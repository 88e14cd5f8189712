import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { providerHex } from '../../../src/lib/platform-key.ts';
import { generateSigningKeyPair, type SigningKeyPair } from '../../common/signing.ts';
import { startTcpProxy, type TcpProxy } from '../../common/tcp-proxy.ts';
import type { Cleanup } from './cleanup.ts';
import { provideDatabase } from './database.ts';
import { createLeakDetector, type LeakDetector } from './leaks.ts';
import { freePort } from './net.ts';
import { startNginx } from './nginx.ts';
import { createReceiver, type Receiver } from './processes.ts';
import { openStore, type Store } from './store.ts';

const BODY_LIMIT_BYTES = 4 * 1024 * 1024;
const RECEIVER_NAMES = ['receiver-1', 'receiver-2'];

/** Everything a scenario needs: nginx in front of two receivers sharing one Postgres. */
export interface Stack {
  nginxUrl: string;
  receivers: Receiver[];
  /** Between the receivers and Postgres: `cut()` is a database outage. */
  databaseProxy: TcpProxy;
  store: Store;
  secret: string;
  signer: SigningKeyPair;
  leaks: LeakDetector;
  /** What every receiver is started with (through the fault proxy), METRICS_PORT aside. */
  receiverEnv: Readonly<Record<string, string>>;
  /** Every log the run produced, by source. */
  logs(): { source: string; text: string }[];
  /** Another log for the secrets check (a command a scenario ran). */
  addLog(source: string, text: () => string): void;
  describe(): string[];
}

export interface StackOptions {
  logLevel: string;
  keep: boolean;
  cleanup: Cleanup;
  log: (line: string) => void;
}

export async function startStack(o: StackOptions): Promise<Stack> {
  const { cleanup } = o;
  const dir = mkdtempSync(path.join(tmpdir(), 'receiver-lb-'));
  cleanup.defer('remove temporary folder', () =>
    o.keep ? o.log(`kept ${dir}`) : rmSync(dir, { recursive: true, force: true }),
  );
  // Runs after every process has stopped, so the files hold their last words too.
  const receivers: Receiver[] = [];
  cleanup.defer('write receiver logs', () => {
    if (!o.keep) return;
    for (const r of receivers) writeFileSync(path.join(dir, `${r.name}.log`), r.output());
  });

  const database = await provideDatabase(cleanup);
  const target = new URL(database.url);
  const databaseProxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  cleanup.defer('close database proxy', () => databaseProxy.close());
  const viaProxy = new URL(database.url);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(databaseProxy.port);

  const signer = await generateSigningKeyPair();
  const secret = `Basic ${randomBytes(24).toString('base64')}`;
  const env = {
    DATABASE_URL: viaProxy.toString(),
    DATABASE_CONNECTION_TIMEOUT_MS: '2000',
    SIGNING_KEY: providerHex(signer.publicKey),
    WEBHOOK_SECRETS: secret,
    BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
    // Only nginx's address is trusted, so remote_address is the sender's, from X-Forwarded-For.
    TRUST_PROXY: '127.0.0.1',
    LOG_LEVEL: o.logLevel,
    SHUTDOWN_TIMEOUT_MS: '5000',
    PROVIDER_ENV: 'sandbox',
  };
  for (const name of RECEIVER_NAMES) {
    // Two instances on one host: each its own metrics listener.
    const metricsPort = String(await freePort());
    const receiver = createReceiver(name, await freePort(), { ...env, METRICS_PORT: metricsPort });
    receivers.push(receiver);
    cleanup.defer(`stop ${name}`, async () => {
      const exit = receiver.stop('SIGTERM');
      const force = setTimeout(() => {
        // The same exit as `exit`, which is awaited (and any failure reported) below.
        receiver.stop('SIGKILL').catch(() => {});
      }, 8000);
      await exit;
      clearTimeout(force);
    });
  }
  await Promise.all(receivers.map((receiver) => receiver.start()));

  const nginx = await startNginx(
    {
      dir,
      listenPort: await freePort(),
      upstreamPorts: receivers.map((receiver) => receiver.port),
      clientMaxBodyBytes: BODY_LIMIT_BYTES,
    },
    cleanup,
  );
  const store = openStore(database.url);
  cleanup.defer('close store pool', () => store.close());
  const extraLogs: { source: string; text: () => string }[] = [];

  return {
    nginxUrl: nginx.baseUrl,
    receivers,
    databaseProxy,
    store,
    secret,
    signer,
    leaks: createLeakDetector(secret),
    receiverEnv: env,
    logs: () => [
      ...receivers.map((receiver) => ({ source: receiver.name, text: receiver.output() })),
      { source: 'nginx', text: nginx.logs() },
      ...extraLogs.map((extra) => ({ source: extra.source, text: extra.text() })),
    ],
    addLog: (source, text) => {
      extraLogs.push({ source, text });
    },
    describe: () => [
      `nginx ${nginx.baseUrl} -> ${receivers.map((r) => `${r.name} :${r.port}`).join(', ')}`,
      `postgres: ${database.description}, via fault proxy :${databaseProxy.port}`,
      `temporary folder: ${dir}`,
    ],
  };
}
