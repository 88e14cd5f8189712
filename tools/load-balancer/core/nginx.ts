import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Skipped } from '../../common/tool-errors.ts';
import type { Cleanup } from './cleanup.ts';
import { getStatus, waitFor } from './net.ts';
import { nginxConfig, type NginxConfigOptions } from './nginx-config.ts';

/** nginx cannot be had on this machine: the run is skipped, not passed. */
class NginxUnavailable extends Skipped {}

/** Installs nginx from Debian's packages when it is missing (as root only). */
export function ensureNginx(log: (line: string) => void): string {
  const found = nginxVersion();
  if (found) return found;
  if (process.getuid?.() !== 0) {
    throw new NginxUnavailable(
      'nginx is not installed and this is not root: apt-get install nginx',
    );
  }
  log('nginx not found: installing nginx-light from Debian packages (apt-get)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args: string[]) =>
    spawnSync('apt-get', args, { env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
  const update = apt(['update']);
  if (update.status !== 0) {
    throw new NginxUnavailable(`apt-get update failed: ${update.stderr?.toString().trim()}`);
  }
  for (const pkg of ['nginx-light', 'nginx']) {
    if (apt(['install', '-y', '--no-install-recommends', pkg]).status === 0 && nginxVersion()) {
      return nginxVersion() as string;
    }
  }
  throw new NginxUnavailable('apt-get could not install nginx-light or nginx');
}

function nginxVersion(): string | undefined {
  const probe = spawnSync('nginx', ['-v'], { encoding: 'utf8' });
  return probe.status === 0 ? probe.stderr.trim() : undefined;
}

export interface RunningNginx {
  baseUrl: string;
  logs(): string;
}

/** Starts nginx in the foreground as a child of the harness, with its own config and files. */
export async function startNginx(
  options: Omit<NginxConfigOptions, 'runAsRoot'>,
  cleanup: Cleanup,
): Promise<RunningNginx> {
  const configFile = path.join(options.dir, 'nginx.conf');
  writeFileSync(configFile, nginxConfig({ ...options, runAsRoot: process.getuid?.() === 0 }));
  const errorLog = path.join(options.dir, 'error.log');
  const output: string[] = [];
  const child = spawn(
    'nginx',
    ['-p', options.dir, '-e', errorLog, '-c', configFile, '-g', 'daemon off;'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  let running = true;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running = false;
      resolve();
    }),
  );
  cleanup.defer('stop nginx', async () => {
    if (!running) return;
    child.kill('SIGTERM');
    const killTimer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(killTimer);
  });

  const baseUrl = `http://127.0.0.1:${options.listenPort}`;
  await waitFor(
    'nginx to listen',
    async () => {
      if (!running) throw new Error(`nginx exited at start:\n${output.join('')}${read(errorLog)}`);
      return (await getStatus(`${baseUrl}/healthz`)) !== undefined;
    },
    10_000,
  );
  return {
    baseUrl,
    logs: () =>
      [output.join(''), read(errorLog), read(path.join(options.dir, 'access.log'))].join('\n'),
  };
}

function read(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}
