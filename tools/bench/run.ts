import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { createCleanup } from './core/cleanup.ts';
import { createDeliveryPool } from './core/deliveries.ts';
import { describeCode, describeMachine, sampleBusyPercent } from './core/machine.ts';
import { parseOptions, USAGE, UsageError } from './core/options.ts';
import { listBenchDatabases, readPostgresFacts, withClient } from './core/postgres.ts';
import { readMemory } from './core/proc-stats.ts';
import { runRounds, type RoundsContext } from './core/rounds.ts';
import { BENCH_SERVERS_TSCONFIG, launchServers } from './core/servers.ts';
import { profileServers } from './profile-run.ts';
import { publishResult } from './report.ts';
import { runStored } from './stored/run-stored.ts';
import { summarise } from './summary.ts';

/**
 * `npm run bench`: the receiver against a hand-written receiver and a bare Express echo, on the
 * same machine and the same Postgres, in alternating rounds; with --stored=N, the receiver on an
 * empty database against itself on one holding N deliveries. See docs/benchmark.md.
 */

const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));
const log = (line: string) => console.log(line);

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2), process.env);
  if (options === 'help') {
    console.log(USAGE);
    return 0;
  }
  const benchDir = join(PROJECT_DIR, '.data', 'bench');
  const logDir = join(benchDir, 'logs');
  mkdirSync(logDir, { recursive: true });

  const cleanup = createCleanup(log);
  process.once('exit', () => cleanup.runNow());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`\n${signal}: stopping servers and dropping databases`);
      const exit = () => process.exit(130);
      cleanup.run().then(exit, exit); // run() reports each failed step itself
    });
  }

  try {
    log('building (npm run build): the servers run as compiled JavaScript, as in production');
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: PROJECT_DIR, stdio: 'inherit' });
    // The comparison servers are not part of the product: compiled on their own, outside dist/
    // (--stored runs the receiver alone).
    if (options.stored === undefined) {
      execFileSync('npx', ['tsc', '-p', BENCH_SERVERS_TSCONFIG], {
        cwd: PROJECT_DIR,
        stdio: 'inherit',
      });
    }
    const startedAt = new Date();
    // Read before the servers load the code: what was measured, not what is there afterwards.
    const code = describeCode(PROJECT_DIR);
    const machine = describeMachine(await sampleBusyPercent(2000));
    if (machine.busyPercentBeforeRun > 20 * machine.cpus) {
      log(
        `warning: the machine is already ${Math.round(machine.busyPercentBeforeRun)}% busy ` +
          `(of ${machine.cpus * 100}%) before the run: figures will be noisy`,
      );
    }
    const postgres = await readPostgresFacts(options.adminDatabaseUrl);
    const leftovers = await listBenchDatabases(options.adminDatabaseUrl);
    if (leftovers.length > 0) {
      log(`note: databases left by an earlier, killed run: ${leftovers.join(', ')}`);
    }
    log(
      `Postgres ${postgres.version}: ${Object.entries(postgres.settings)
        .map(([name, value]) => `${name}=${value}`)
        .join(', ')} (read, not changed)`,
    );

    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const secret = `Basic ${randomBytes(24).toString('base64')}`;
    const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const pool = createDeliveryPool({ privateKeyPem, secret });

    if (options.stored !== undefined) {
      await runStored({
        options: { ...options, stored: options.stored },
        projectDir: PROJECT_DIR,
        benchDir,
        logDir,
        publicKey,
        privateKeyPem,
        secret,
        pool,
        cleanup,
        log,
        code,
        machine,
        postgres,
        startedAt,
      });
      return 0;
    }

    // Servers start and the first deliveries are signed at the same time: nothing is measured yet.
    const signingStarted = performance.now();
    const [servers, signed] = await Promise.all([
      launchServers(
        options,
        {
          projectDir: PROJECT_DIR,
          benchDir,
          logDir,
          adminUrl: options.adminDatabaseUrl,
          poolMax: options.poolMax,
          publicKey,
          secret,
          cleanup,
        },
        log,
      ),
      pool.ensure(options.connections * 200).then(() => performance.now() - signingStarted),
    ]);
    log(`pre-signed ${pool.size} deliveries in ${Math.round(signed)} ms`);
    const startRss = new Map(servers.map((s) => [s.name, readMemory(s.process.pid).rssBytes]));

    const rounds: RoundsContext = {
      options,
      servers,
      pool,
      log,
      settle: async (server) => {
        if (server.store) await server.store.probe.truncateAll();
        // Each phase starts with nothing dirty in Postgres: a checkpoint from an earlier phase
        // must not land in this one.
        await withClient(options.adminDatabaseUrl, (client) => client.query('CHECKPOINT'));
        await new Promise((resolve) => setTimeout(resolve, 250));
      },
    };
    if (options.profile) {
      await profileServers({ ...rounds, benchDir, projectDir: PROJECT_DIR });
      return 0;
    }
    const records = await runRounds(rounds);

    const memory = Object.fromEntries(
      servers.map((s) => [
        s.name,
        {
          startRssBytes: startRss.get(s.name) ?? 0,
          peakRssBytes: readMemory(s.process.pid).peakRssBytes,
        },
      ]),
    );
    await cleanup.run();

    const summary = summarise(
      options,
      records,
      memory,
      Object.fromEntries(servers.map((s) => [s.name, s.runtime])),
    );
    await publishResult(
      {
        code,
        startedAt,
        finishedAt: new Date(),
        machine,
        postgres,
        options,
        records,
        memory,
        summary,
      },
      { projectDir: PROJECT_DIR, benchDir },
      log,
    );
    return 0;
  } finally {
    await cleanup.run();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(error.message);
      process.exit(2);
    }
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
