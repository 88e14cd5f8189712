import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../logger.ts';
import { loadEmbeddedPostgres, reachableByOthers } from './embedded-postgres-runtime.ts';
import { startPostmaster } from './postmaster.ts';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Where the cluster's files live; created and initialised on first use, reused after. */
  dataDir: string;
  port: number;
  logger: Logger;
  /** Delete the data when stopped (tests). */
  ephemeral?: boolean;
}

const DATABASE = 'postgres';
const USER = 'postgres';

/**
 * Starts a real Postgres from the `embedded-postgres` package so the service (and its tests)
 * run on a machine with no database installed. Listens on localhost only. The package creates
 * the cluster; the server process itself is ours (postmaster.ts): in its own session, stopped
 * by `stop()` once the receiver has finished with it.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedDatabase> {
  const { dataDir, port, logger } = options;
  const clusterDir = path.join(dataDir, 'cluster');
  // First: a production install has no embedded Postgres, and then nothing is written here.
  const { EmbeddedPostgres, postgresBinary } = await loadEmbeddedPostgres(logger);
  const password = readOrCreatePassword(dataDir);
  const runningAsRoot = process.getuid?.() === 0;

  const postgres = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: !options.ephemeral,
    // Postgres refuses to run as root; the package can create and use a `postgres` user instead.
    createPostgresUser: runningAsRoot,
    // Text in UTF-8 whatever this machine's locale: initdb would otherwise pick SQL_ASCII under
    // a C locale, where Postgres cannot convert a body's bytes from UTF-8. C collation: byte
    // order, the same on every machine. (A cluster initialised earlier keeps its encoding.)
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    onLog: (message) => logger.debug({ postgres: message.trim() }, 'embedded postgres'),
    onError: (error) => logger.warn({ err: error }, 'embedded postgres'),
  });

  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    logger.info({ dataDir: clusterDir }, 'initialising embedded postgres');
    await postgres.initialise();
  }
  let postmaster;
  try {
    postmaster = await startPostmaster({
      postgresBinary,
      clusterDir,
      port,
      flags: ['-c', 'listen_addresses=localhost'],
      logFile: path.join(dataDir, 'postgres.log'),
      runAs: runningAsRoot ? postgresUser() : undefined,
      logger,
    });
  } catch (error) {
    throw new Error(
      `embedded postgres did not start on port ${port} (port in use, or data dir ${clusterDir} not usable): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  logger.info({ port, dataDir: clusterDir }, 'embedded postgres started');

  return {
    url: `postgres://${USER}:${encodeURIComponent(password)}@localhost:${port}/${DATABASE}`,
    stop: async () => {
      await postmaster.stop();
      if (options.ephemeral) rmSync(clusterDir, { recursive: true, force: true });
    },
  };
}

/** The user the package created (or found) to run Postgres as, since Postgres refuses root. */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) =>
    Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** The cluster's password is made once, kept beside it (owner-only), and reused on every start. */
function readOrCreatePassword(dataDir: string): string {
  const file = path.join(dataDir, 'password');
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBytes(18).toString('base64url');
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/**
 * As root the cluster runs as the `postgres` user, which must be able to reach its data dir
 * through every parent folder. A project cloned under a private folder (a home directory, a
 * mktemp -d) is not reachable; then the data goes to a per-project folder under the system's
 * temporary directory instead, and the caller logs why.
 */
export function resolveEmbeddedDataDir(
  requested: string,
  projectDir: string,
): { dir: string; relocated: boolean } {
  const absolute = path.resolve(projectDir, requested);
  if (process.getuid?.() !== 0 || reachableByOthers(path.dirname(absolute))) {
    return { dir: absolute, relocated: false };
  }
  const name = `monoova-webhook-receiver-${createHash('sha256').update(absolute).digest('hex').slice(0, 12)}`;
  // /var/tmp survives reboots where /tmp may not.
  const base = existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir();
  return { dir: path.join(base, name), relocated: true };
}
