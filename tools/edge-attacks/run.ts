import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { UsageError } from '../../src/lib/command-line/errors.ts';
import { httpCall } from '../../src/lib/http-client.ts';
import { databaseUrl, withClient } from '../common/postgres.ts';
import { readMemory } from '../common/proc-stats.ts';
import { startServer, type RunningServer } from '../common/server-process.ts';
import { freePort } from '../common/free-port.ts';
import { runTool } from '../common/run-tool.ts';
import { bombBody, openGzipStallers, openTricklers, type AttackOptions } from './attacks.ts';

/**
 * `npm run edge-attacks`: the edge attacks at full scale against the real receiver process
 * (compiled, as production runs it), once, for the figures in the report. Not part of `npm test`
 * (the suite proves the same properties at a small scale). Everything on 127.0.0.1, bounded in
 * sockets (at most MAX_SOCKETS at once) and time (each delivery gives up after 20 s).
 */

const USAGE = `npm run edge-attacks -- [flags]
  --scenario=NAME     slots | secret-slots | memory | secret-memory | all (default all)
                        slots          slow senders without credentials (headers, then a byte a second)
                        secret-slots   the same slow senders presenting the shared secret (no valid
                                       signature: only the platform can sign)
                        memory         stalled gzip bodies inflating to ~4 MB, without credentials
                        secret-memory  the same presenting the shared secret
                      the secret-* scenarios need --secret=yes; "all" runs every one that applies
  --secret=yes|no     configure WEBHOOK_SECRETS on the receiver (default yes)
  --sockets=N         attacking sockets (default 260 for slots, 256 for memory; at most 1000)
  --deliveries=N      genuine signed deliveries sent while a slots attack runs (default 20, at most 200)
  --reconnect-ms=N    slots attacks: replace each socket the server closes N ms later, so N
                      attackers stay connected (default: no replacement)
  --admin-url=URL     Postgres to create the scratch database on
                      (default postgres://postgres@127.0.0.1:5432/test)
  --no-build          use dist/ as it is
  --help`;

const SCENARIOS = ['slots', 'secret-slots', 'memory', 'secret-memory'] as const;
type Scenario = (typeof SCENARIOS)[number];
const MAX_SOCKETS = 1000;
const MAX_DELIVERIES = 200;

const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));
const SECRET = 'Basic ZWRnZS1hdHRhY2tzOm5vdC1hLXJlYWwtc2VjcmV0';
const MIB = 1024 * 1024;
const log = (line: string) => console.log(line);

async function attack(values: {
  scenario: string;
  secret: string;
  sockets: string | undefined;
  deliveries: string;
  'reconnect-ms': string | undefined;
  'admin-url': string;
  'no-build': boolean;
}): Promise<void> {
  const withSecret = values.secret !== 'no';
  const scenarios: Scenario[] =
    values.scenario === 'all'
      ? SCENARIOS.filter((name) => withSecret || !name.startsWith('secret-'))
      : SCENARIOS.filter((name) => name === values.scenario);
  if (scenarios.length === 0 || (!withSecret && scenarios[0]?.startsWith('secret-'))) {
    throw new UsageError(
      `--scenario=${values.scenario}: not one of ${SCENARIOS.join(', ')}, all\n(the secret-* scenarios need --secret=yes)`,
      '',
    );
  }
  const sockets = (fallback: number) => bounded(values.sockets, fallback, 1, MAX_SOCKETS);
  const deliveries = bounded(values.deliveries, 20, 1, MAX_DELIVERIES);
  const reconnectAfterMs =
    values['reconnect-ms'] === undefined
      ? undefined
      : bounded(values['reconnect-ms'], 1000, 10, 60_000);
  if (!values['no-build']) {
    log('building (npm run build)');
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: PROJECT_DIR, stdio: 'inherit' });
  }
  const adminUrl = values['admin-url'];
  const dbName = `edge_attacks_${randomBytes(4).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${dbName}`));
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const port = await freePort();
  const metricsPort = await freePort();
  const logDir = join(PROJECT_DIR, '.data', 'edge-attacks');
  mkdirSync(logDir, { recursive: true });
  let server: RunningServer | undefined;
  try {
    log(`starting the receiver on 127.0.0.1:${port} (shared secret ${withSecret ? 'on' : 'off'})`);
    server = await startServer(
      {
        script: 'dist/src/cli/main.js',
        args: ['serve'],
        nodeArgs: ['--max-semi-space-size=2', '--max-old-space-size=1024'],
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: process.env.HOME ?? '/tmp',
          MALLOC_ARENA_MAX: '2',
          PORT: String(port),
          HOST: '127.0.0.1',
          DATABASE_URL: databaseUrl(adminUrl, dbName),
          SIGNING_KEY: publicKey.export({ type: 'pkcs1', format: 'der' }).toString('hex'),
          LOG_LEVEL: 'warn',
          METRICS_PORT: String(metricsPort),
          METRICS_HOST: '127.0.0.1',
          ...(withSecret ? { WEBHOOK_SECRETS: SECRET } : { ALLOW_NO_WEBHOOK_SECRET: 'true' }),
        },
        port,
        readyPath: '/readyz',
        stdoutFile: join(logDir, 'receiver.out.log'),
        stderrFile: join(logDir, 'receiver.err.log'),
      },
      PROJECT_DIR,
    );
    const deliver = async (): Promise<number> => {
      const body = Buffer.from(
        JSON.stringify({ TransactionId: `T${randomBytes(6).toString('hex')}`, Amount: 1.5 }),
      );
      const response = await httpCall({
        url: `${server?.url}/webhooks/NPPReceivePayment`,
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Webhookid: String(BigInt(Date.now()) * 1000n + BigInt(Math.floor(Math.random() * 1000))),
          'Verification-Signature': sign('sha256', body, privateKey).toString('base64'),
          ...(withSecret && { Authorisation: SECRET }),
        },
        body,
        timeoutMs: 20_000,
        maxResponseBytes: 64 * 1024,
      }).catch(() => undefined);
      return response?.status ?? 0;
    };
    const metric = (name: string) => readMetric(metricsPort, name);
    for (const scenario of scenarios) {
      const attackerSecret = scenario.startsWith('secret-');
      const attack: AttackOptions = {
        ...(attackerSecret && { authorisation: SECRET }),
        ...(scenario.endsWith('slots') && { reconnectAfterMs }),
      };
      const who = attackerSecret ? 'presenting the shared secret' : 'without credentials';
      const evictedBefore = await metric('webhook_unverified_bodies_evicted_total');
      if (scenario.endsWith('slots')) {
        const count = sockets(260);
        log(
          `${scenario}: opening ${count} sockets ${who} that send headers, then one byte per ` +
            `second${reconnectAfterMs === undefined ? '' : ` (each replaced ${reconnectAfterMs} ms after the server closes it)`}`,
        );
        const slow = await openTricklers(port, count, attack);
        await delay(2000);
        const statuses = await sendSequentially(deliver, deliveries);
        const ok = statuses.filter((status) => status === 200).length;
        log(
          `${scenario}: ${ok}/${statuses.length} genuine signed deliveries answered 200 ` +
            `(${tally(statuses)}) with ${count} slow senders ${who}; the server closed ` +
            `${slow.closedCount()} of ${slow.openedCount()} attacking connections; ` +
            `unverified bodies evicted: ${evictedSince(evictedBefore, await metric('webhook_unverified_bodies_evicted_total'))}`,
        );
        slow.closeAll();
        await delay(1000);
      } else {
        const count = sockets(256);
        const before = readMemory(server.pid);
        const bomb = bombBody(4 * MIB);
        log(
          `${scenario}: RSS before ${mb(before.rssBytes)}; opening ${count} sockets ${who} ` +
            `sending ${bomb.length} bytes of gzip (inflates to ~4 MB), then stalling`,
        );
        const stallers = await openGzipStallers(port, count, bomb, attack);
        const peak = await sampleRss(server.pid, 8000);
        log(
          `${scenario}: RSS under attack peaked at ${mb(peak)} (${stallers.closedCount()} of ` +
            `${count} connections already closed by the server; body bytes held ` +
            `${mb(await metric('webhook_body_bytes_in_flight'))})`,
        );
        const status = await deliver();
        log(`${scenario}: a genuine delivery during the attack answered ${status}`);
        stallers.closeAll();
        await delay(3000);
        log(`${scenario}: RSS 3 s after the attack ended ${mb(readMemory(server.pid).rssBytes)}`);
      }
    }
  } finally {
    await server?.stop();
    await withClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${dbName}`));
  }
}

function bounded(text: string | undefined, fallback: number, min: number, max: number): number {
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`expected a whole number from ${min} to ${max}, got ${text}`);
  }
  return value;
}

/** A sample from the receiver's metrics listener (127.0.0.1); NaN when it has no such series. */
async function readMetric(port: number, name: string): Promise<number> {
  const response = await httpCall({
    url: `http://127.0.0.1:${port}/metrics`,
    timeoutMs: 5000,
    maxResponseBytes: 4 * 1024 * 1024,
  }).catch(() => undefined);
  const text = response?.body.toString('utf8') ?? '';
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return match?.[1] === undefined ? Number.NaN : Number(match[1]);
}

const evictedSince = (before: number, after: number) =>
  Number.isNaN(after)
    ? 'n/a (no such metric)'
    : String(after - (Number.isNaN(before) ? 0 : before));

async function sendSequentially(deliver: () => Promise<number>, count: number) {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) statuses.push(await deliver());
  return statuses;
}

/** Highest RSS seen over `forMs`, sampled every 250 ms, with a progress line each second. */
async function sampleRss(pid: number, forMs: number): Promise<number> {
  let peak = 0;
  for (let elapsed = 0; elapsed < forMs; elapsed += 250) {
    const { rssBytes } = readMemory(pid);
    peak = Math.max(peak, rssBytes);
    if (elapsed % 1000 === 0) log(`  ${elapsed / 1000} s: RSS ${mb(rssBytes)}`);
    await delay(250);
  }
  return peak;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

function tally(statuses: number[]): string {
  const counts = new Map<number, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts]
    .map(([status, n]) => `${n} x ${status === 0 ? 'no answer' : status}`)
    .join(', ');
}

await runTool(
  {
    name: 'edge-attacks',
    help: USAGE,
    options: [
      { flags: '--scenario <name>' },
      { flags: '--secret <yes|no>' },
      { flags: '--sockets <N>' },
      { flags: '--deliveries <N>' },
      { flags: '--reconnect-ms <N>' },
      { flags: '--admin-url <url>' },
      { flags: '--no-build' },
    ],
    run: ({ options }) =>
      attack({
        scenario: (options.scenario as string | undefined) ?? 'all',
        secret: (options.secret as string | undefined) ?? 'yes',
        sockets: options.sockets as string | undefined,
        deliveries: (options.deliveries as string | undefined) ?? '20',
        'reconnect-ms': options.reconnectMs as string | undefined,
        'admin-url':
          (options.adminUrl as string | undefined) ?? 'postgres://postgres@127.0.0.1:5432/test',
        'no-build': options.build === false,
      }),
  },
  'edge-attacks failed',
);
