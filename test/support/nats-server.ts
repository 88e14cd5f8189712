import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../tools/common/free-port.ts';
import { waitFor } from './receiver-process.ts';

/**
 * A nats-server of a test's own (JetStream on, its store in a temporary directory, 127.0.0.1
 * only), which the test may kill (SIGKILL: nothing flushed that the kernel did not already
 * have) and start again on the same port and store.
 */
export interface TestNatsServer {
  url: string;
  port: number;
  /** SIGKILL, and the exit awaited. */
  kill(): Promise<void>;
  /** Started again on the same port and store directory; resolves once it answers. */
  restart(): Promise<void>;
  /** Killed, its store removed. */
  stop(): Promise<void>;
}

const NATS_SERVER = process.env.NATS_SERVER_BIN ?? 'nats-server';

export async function startNatsServer(extraArgs: string[] = []): Promise<TestNatsServer> {
  const port = await freePort();
  const storeDir = mkdtempSync(path.join(tmpdir(), 'feed-nats-'));
  let child: ChildProcess | undefined;
  let output = '';

  async function start() {
    output = '';
    const started = spawn(
      NATS_SERVER,
      ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir, ...extraArgs],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } },
    );
    started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child = started;
    await waitFor(
      () => /Server is ready/.test(output) || started.exitCode !== null,
      'nats-server to start',
      15_000,
    );
    if (started.exitCode !== null) throw new Error(`nats-server exited: ${output}`);
  }

  async function kill() {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  }

  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    kill,
    restart: start,
    stop: async () => {
      await kill();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
