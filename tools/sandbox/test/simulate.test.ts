import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { PUBLIC_KEY_PATH } from '../../../src/lib/platform-key.ts';
import { startKeyServer } from '../../common/key-server.ts';
import { VALID_VARIANTS } from '../webhooks/payloads.ts';
import { DEFAULT_EVENTS, planSimulation } from '../simulate/plan.ts';
import { runSimulation, type RunOptions } from '../simulate/run-simulation.ts';
import { loadOrCreateSigningKey } from '../../common/signing-key-file.ts';
import { simulate } from '../simulate/simulate.ts';
import { checkSimulation, type SimulationSummary } from '../simulate/summary.ts';
import { toolFailure } from '../../common/run-tool.ts';
import { fetchedKeys as fetchedKeysOf, serveReceiver as serveReceiverOn } from './receiver.ts';
import { startTestSandbox } from './support.ts';
import type { SigningKeySource } from '../../../src/receiver/index.ts';
import { useTestbed } from '../../../test/support/testbed.ts';

const bed = useTestbed();

/** The simulation's exit code, as the tool answers it (tools/common/run-tool.ts). */
function exitCode(summary: SimulationSummary): number {
  try {
    checkSimulation(summary);
    return 0;
  } catch (error) {
    return toolFailure(error, 'simulate').code;
  }
}
const SECRET = 'Basic c2ltdWxhdG9y';
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function fetchedKeys(url: string): SigningKeySource {
  const keys = fetchedKeysOf(url);
  cleanup.push(() => keys.stop());
  return keys;
}

/** The receiver on a real socket. */
async function serveReceiver(keys: SigningKeySource, secrets = [SECRET]): Promise<string> {
  const receiver = await serveReceiverOn(bed.database.db, keys, secrets);
  cleanup.push(() => receiver.close());
  return receiver.url;
}

const run = (url: string): Omit<RunOptions, 'url'> & { url: string } => ({
  url,
  secret: SECRET,
  rate: 0,
  concurrency: 4,
  retryDelayMs: 20,
  timeoutMs: 5000,
});
const plan = {
  count: 30,
  duplicateRatio: 0.2,
  badSignatureRatio: 0.1,
  malformedRatio: 0.1,
  seed: 42,
};

/** The sandbox, the stand-in platform: its key endpoint is where a receiver fetches the key. */
async function startPlatform() {
  const sandbox = await startTestSandbox();
  return { keys: sandbox.keys, keyUrl: `${sandbox.url}${PUBLIC_KEY_PATH}` };
}

describe('sandbox simulate', () => {
  it('when it sends to a receiver that fetched its key, then accepted ones are stored once, forgeries 401, malformed 400 and quarantined', async () => {
    const platform = await startPlatform();
    const keys = fetchedKeys(platform.keyUrl);
    await keys.start();
    const url = await serveReceiver(keys);

    const summary = await simulate(platform.keys, { ...plan, ...run(url) });

    // 30 notifications: 3 forged, 3 malformed, 24 accepted of which 5 are sent twice.
    expect(summary).toMatchObject({
      notifications: 30,
      deliveries: 35,
      duplicates: 5,
      sent: 35,
      answers: { 200: 29, 400: 3, 401: 3, '5xx': 0, other: 0 },
      networkErrors: 0,
      retried: 0,
      lost: 0,
      forgedAccepted: 0,
      unexpected: [],
    });
    expect(exitCode(summary)).toBe(0);
    expect(await bed.database.count('webhook_deliveries')).toBe(24);
    expect(await bed.database.count('quarantined_deliveries')).toBe(3);
    const events = await bed.database.query<{ event_name: string; modelled: boolean }>(
      'SELECT DISTINCT event_name, modelled FROM webhook_deliveries ORDER BY event_name',
    );
    expect(events.map((e) => e.event_name)).toEqual([...DEFAULT_EVENTS].sort());
    expect(await bed.database.count('npp_payments')).toBeGreaterThan(0);
    expect(await bed.database.count('credit_rejections')).toBeGreaterThan(0);
  });

  it('when the receiver has no key at first, then every delivery gets 503, is retried once, and the retries are stored', async () => {
    const key = await loadOrCreateSigningKey({});
    // Find a free port for the key endpoint, then take it down: the receiver starts keyless.
    const probe = await startKeyServer(key.publicKey, { host: '127.0.0.1', port: 0 });
    await probe.close();
    const keys = fetchedKeys(probe.url);
    await keys.start();
    expect(keys.current()).toBeUndefined();
    const url = await serveReceiver(keys);
    const port = Number(new URL(probe.url).port);
    let refused = 0;
    let keyServerUp: Promise<void> | undefined;
    const deliveries = planSimulation(
      { ...plan, count: 6, duplicateRatio: 0, badSignatureRatio: 0, malformedRatio: 0 },
      key.privateKey,
    );

    const summary = await runSimulation(deliveries, {
      ...run(url),
      retryDelayMs: 200,
      // The platform's key endpoint comes up once every first attempt has been refused.
      onAttempt: (_send, status) => {
        if (status === 503 && ++refused === deliveries.length) {
          keyServerUp = startKeyServer(key.publicKey, { host: '127.0.0.1', port }).then(
            (server) => {
              cleanup.push(() => server.close());
            },
          );
        }
      },
    });
    await keyServerUp; // a key server that failed to start says so here

    expect(summary).toMatchObject({
      sent: 12,
      answers: { 200: 6, '5xx': 6 },
      retried: 6,
      retrySucceeded: 6,
      lost: 0,
    });
    expect(await bed.database.count('webhook_deliveries')).toBe(6);
  });

  it('when the receiver wants another secret, then every delivery is lost and the exit code says so', async () => {
    const platform = await startPlatform();
    const keys = fetchedKeys(platform.keyUrl);
    await keys.start();

    const summary = await simulate(platform.keys, {
      ...plan,
      count: 4,
      ...run(await serveReceiver(keys, ['Basic b3RoZXI='])),
    });

    // 4 notifications, none forged or malformed at this count, one sent twice.
    expect(summary).toMatchObject({ deliveries: 5, answers: { 401: 5 }, retried: 0, lost: 5 });
    expect(exitCode(summary)).toBe(1);
    await bed.expectNothingStored();
  });

  it('when nothing listens at the URL, then each delivery is a network error, retried once, and lost', async () => {
    const key = await loadOrCreateSigningKey({});
    const deliveries = planSimulation(
      { ...plan, count: 3, duplicateRatio: 0, badSignatureRatio: 0, malformedRatio: 0 },
      key.privateKey,
    );

    const summary = await runSimulation(deliveries, {
      ...run('http://127.0.0.1:9'),
      retryDelayMs: 0,
    });

    expect(summary).toMatchObject({
      sent: 6,
      networkErrors: 6,
      retried: 3,
      retrySucceeded: 0,
      lost: 3,
    });
    expect(summary.unexpected[0]).toMatch(/expected 200, got no answer \(.*ECONNREFUSED/);
  });

  it('when the key endpoint is asked, then it answers like the platform: upper-case hex DER PKCS#1, octet-stream, no authentication', async () => {
    const platform = await startPlatform();

    const res = await fetch(platform.keyUrl);
    const text = await res.text();
    const other = await fetch(new URL('/public/v1/certificate/other', platform.keyUrl));

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(text).toMatch(/^3082010A02820101[0-9A-F]+0203010001$/);
    expect(other.status).toBe(404);
  });

  it('when a key file is asked for, then it is made once with --save-key and the same key is loaded after', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'simulate-key-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'platform.pem');

    await expect(loadOrCreateSigningKey({ keyFile: file })).rejects.toThrow(/--save-key/);
    const made = await loadOrCreateSigningKey({ keyFile: file, saveKey: true });
    const loaded = await loadOrCreateSigningKey({ keyFile: file });

    expect([made.origin, loaded.origin]).toEqual(['generated and saved', 'loaded']);
    expect(loaded.publicKey.equals(made.publicKey)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('when planned twice with one seed, then the bytes are the same, and every variant of every event is covered', async () => {
    const { privateKey } = await loadOrCreateSigningKey({});
    const options = {
      count: 40,
      duplicateRatio: 0.1,
      badSignatureRatio: 0.1,
      malformedRatio: 0.1,
      seed: 7,
    };
    const one = planSimulation(options, privateKey);
    const two = planSimulation(options, privateKey);
    const other = planSimulation({ ...options, seed: 8 }, privateKey);
    const bytes = (p: typeof one) =>
      p.map((s) => `${s.notification.webhookId} ${s.notification.body.toString('base64')}`);

    expect(bytes(two)).toEqual(bytes(one));
    expect(bytes(other)).not.toEqual(bytes(one));
    expect(new Set(one.filter((s) => !s.duplicate).map((s) => s.notification.webhookId)).size).toBe(
      40,
    );
    const accepted = new Set(
      one
        .filter((s) => s.notification.expectation === 'accepted')
        .map((s) => s.notification.variant),
    );
    expect([...accepted].sort()).toEqual(VALID_VARIANTS.map((v) => v.name).sort());
    const onlyRejections = planSimulation(
      { ...options, events: ['NppCreditRejections'] },
      privateKey,
    );
    expect(new Set(onlyRejections.map((s) => s.notification.eventName))).toEqual(
      new Set(['NppCreditRejections']),
    );
    expect(new Set(onlyRejections.map((s) => s.notification.variant))).toEqual(
      new Set(['npp-credit-rejections-array', 'npp-credit-rejections-single-object', 'not-json']),
    );
  });
});

describe('sandbox simulate progress', () => {
  const PROJECT = fileURLToPath(new URL('../../..', import.meta.url));

  it('when deliveries wait for their retry, then a line every interval says what for, how long is left and the counts so far', async () => {
    const key = await loadOrCreateSigningKey({});
    const deliveries = planSimulation(
      { ...plan, count: 3, duplicateRatio: 0, badSignatureRatio: 0, malformedRatio: 0 },
      key.privateKey,
    );
    const lines: string[] = [];

    const started = performance.now();
    const summary = await runSimulation(deliveries, {
      ...run('http://127.0.0.1:9'),
      retryDelayMs: 1500,
      progress: { intervalMs: 250, write: (line) => lines.push(line) },
    });
    const took = performance.now() - started;

    expect(summary).toMatchObject({ sent: 6, retried: 3, lost: 3 });
    // Bounded: at most one line per interval, and the wait was not silent.
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.length).toBeLessThanOrEqual(Math.ceil(took / 250) + 1);
    expect(lines[0]).toMatch(
      /^simulate: waiting: 3 deliveries for the one retry \(the platform's, 2 s after a failure\), due in [12] s; 0 of 3 deliveries done; sent 3: 200 0, 400 0, 401 0, 5xx 0, other 0, network errors 3$/,
    );
    // The next retry's countdown: `due in N s`, or `next in N s, last in M s` when the failures
    // fell in different seconds (a loaded machine spreads them).
    const left = lines.map((line) => Number(/(?:due|next) in (\d+) s/.exec(line)?.[1] ?? -1));
    expect(left.filter((s) => s >= 0).length).toBeGreaterThanOrEqual(3);
    expect([...left].sort((a, b) => b - a)).toEqual(left);
  });

  it('when --rate holds deliveries back, then the lines say how many and when the last one starts; a quick run prints none', async () => {
    const platform = await startPlatform();
    const keys = fetchedKeys(platform.keyUrl);
    await keys.start();
    const url = await serveReceiver(keys);
    const options = {
      ...plan,
      count: 6,
      duplicateRatio: 0,
      badSignatureRatio: 0,
      malformedRatio: 0,
      ...run(url),
    };
    const paced: string[] = [];
    const quick: string[] = [];

    const slow = await simulate(platform.keys, {
      ...options,
      rate: 4,
      progress: { intervalMs: 300, write: (line) => paced.push(line) },
    });
    await simulate(platform.keys, {
      ...options,
      progress: { intervalMs: 5000, write: (line) => quick.push(line) },
    });

    expect(slow).toMatchObject({ answers: { 200: 6 }, lost: 0 });
    expect(paced[0]).toMatch(
      /waiting: \d held back by --rate, last starts in [12] s; \d of 6 deliveries done/,
    );
    expect(quick).toEqual([]);
  });

  it('when the CLI waits for a retry, then its progress lines go to stderr, apart from the summary on stdout', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'simulate-cli-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const args = [
      '--import',
      'tsx',
      'tools/sandbox/main.ts',
      'simulate',
      '--url',
      'http://127.0.0.1:9',
      '--count',
      '2',
      '--retry-delay-ms',
      '1500',
      '--progress-interval-ms',
      '400',
      '--port',
      '0',
      '--key-file',
      path.join(dir, 'key.pem'),
    ];

    const failed = await promisify(execFile)(process.execPath, args, { cwd: PROJECT }).catch(
      (error: { code: number; stdout: string; stderr: string }) => error,
    );

    expect(failed).toMatchObject({ code: 1 });
    const { stdout, stderr } = failed;
    expect(stderr).toMatch(
      /simulate: waiting: 2 deliveries for the one retry \(the platform's, 2 s after a failure\), due in \d s; 0 of 2 deliveries done; sent 2: .*network errors 2/,
    );
    expect(stdout).not.toContain('simulate: waiting');
    expect(stdout).toMatch(/lost 2, forged accepted 0/);
  }, 30_000);
});
