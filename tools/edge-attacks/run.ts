import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { databaseUrl, withClient } from '../bench/postgres.ts';
import { readMemory } from '../bench/proc-stats.ts';
import { freePort, startServer, type RunningServer } from '../bench/server-process.ts';
import { bombBody, openGzipStallers, openTricklers } from './attacks.ts';

/**
 * `npm run edge-attacks`: the two attacks at full scale against the real receiver
 * process (compiled, as production runs it), once, for the figures in the report. Not part of
 * `npm test` (the suite proves the same properties at a small scale).
 */

const USAGE = `npm run edge-attacks -- [flags]
  --scenario=NAME     slots | memory | all (default all)
  --secret=yes|no     configure WEBHOOK_SECRETS on the receiver (default yes)
  --sockets=N         attacking sockets (default 260 for slots, 256 for memory)
  --deliveries=N      genuine signed deliveries sent while the slots attack runs (default 20)
  --admin-url=URL     Postgres to create the scratch database on
                      (default postgres://postgres@127.0.0.1:5432/test)
  --no-build          use dist/ as it is
  --help`;

const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));
const SECRET = 'Basic ZWRnZS1hdHRhY2tzOm5vdC1hLXJlYWwtc2VjcmV0';
const MIB = 1024 * 1024;
const log = (line: string) => console.log(line);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      scenario: { type: 'string', default: 'all' },
      secret: { type: 'string', default: 'yes' },
      sockets: { type: 'string' },
      deliveries: { type: 'string', default: '20' },
      'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
      'no-build': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    log(USAGE);
    return 0;
  }
  const withSecret = values.secret !== 'no';
  if (!values['no-build']) {
    log('building (npm run build)');
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: PROJECT_DIR, stdio: 'inherit' });
  }
  const adminUrl = values['admin-url'];
  const dbName = `edge_attacks_${randomBytes(4).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${dbName}`));
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const port = await freePort();
  const logDir = join(PROJECT_DIR, '.data', 'edge-attacks');
  mkdirSync(logDir, { recursive: true });
  let server: RunningServer | undefined;
  try {
    log(`starting the receiver on 127.0.0.1:${port} (shared secret ${withSecret ? 'on' : 'off'})`);
    server = await startServer(
      {
        script: 'dist/src/main.js',
        nodeArgs: ['--max-semi-space-size=2'],
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: process.env.HOME ?? '/tmp',
          MALLOC_ARENA_MAX: '2',
          PORT: String(port),
          HOST: '127.0.0.1',
          DATABASE_URL: databaseUrl(adminUrl, dbName),
          SIGNING_KEY: publicKey.export({ type: 'pkcs1', format: 'der' }).toString('hex'),
          LOG_LEVEL: 'warn',
          METRICS_PORT: 'off',
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
      const response = await fetch(`${server?.url}/webhooks/NPPReceivePayment`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Webhookid: String(BigInt(Date.now()) * 1000n + BigInt(Math.floor(Math.random() * 1000))),
          'Verification-Signature': sign('sha256', body, privateKey).toString('base64'),
          ...(withSecret && { Authorisation: SECRET }),
        },
        body,
        signal: AbortSignal.timeout(20_000),
      }).catch(() => undefined);
      await response?.arrayBuffer();
      return response?.status ?? 0;
    };
    const scenario = values.scenario;
    if (scenario === 'slots' || scenario === 'all') {
      const count = Number(values.sockets ?? 260);
      log(`slots: opening ${count} sockets that send headers, then one byte per second`);
      const attack = await openTricklers(port, count);
      await delay(2000);
      const statuses = await sendSequentially(deliver, Number(values.deliveries));
      log(
        `slots: genuine deliveries answered ${tally(statuses)} (${count} tricklers open, ` +
          `${attack.closedCount()} closed by the server)`,
      );
      attack.closeAll();
      await delay(1000);
    }
    if (scenario === 'memory' || scenario === 'all') {
      const count = Number(values.sockets ?? 256);
      const before = readMemory(server.pid);
      const bomb = bombBody(4 * MIB);
      log(
        `memory: RSS before ${mb(before.rssBytes)}; opening ${count} sockets sending ` +
          `${bomb.length} bytes of gzip (inflates to ~4 MB), then stalling`,
      );
      const attack = await openGzipStallers(port, count, bomb);
      const peak = await sampleRss(server.pid, 8000);
      log(
        `memory: RSS under attack peaked at ${mb(peak)} (${attack.closedCount()} of ${count} ` +
          'connections already closed by the server)',
      );
      const status = await deliver();
      log(`memory: a genuine delivery during the attack answered ${status}`);
      attack.closeAll();
      await delay(3000);
      log(`memory: RSS 3 s after the attack ended ${mb(readMemory(server.pid).rssBytes)}`);
    }
    return 0;
  } finally {
    await server?.stop();
    await withClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${dbName}`));
  }
}

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

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
