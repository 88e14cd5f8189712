import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchOptions } from './options.ts';
import { prepareProfileDir, profileDir } from './profile-run.ts';
import { runtimeDifferences, sharedRuntime } from './runtime.ts';
import { launchServer, type BenchServer, type LaunchContext } from './server-specs.ts';

/**
 * Starts every server of the run with the same runtime (plus --cpu-prof under --profile), then
 * checks that they really run alike: a difference stops the run before anything is measured,
 * unless --allow-unequal-runtime, when the report fails the parity check instead.
 */
export async function launchServers(
  options: BenchOptions,
  ctx: Omit<LaunchContext, 'runtime' | 'profileArgs'> & { benchDir: string },
  log: (line: string) => void,
): Promise<BenchServer[]> {
  const runtime = sharedRuntime(
    options.runtime,
    startProdScript(ctx.projectDir),
    process.env.BENCH_NODE_ARGS,
  );
  const launches = await Promise.allSettled(
    options.only.map((name) => {
      const dir = profileDir(ctx.benchDir, name);
      if (options.profile) prepareProfileDir(dir);
      return launchServer(name, {
        ...ctx,
        runtime,
        ...(options.profile && { profileArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] }),
      });
    }),
  );
  const servers: BenchServer[] = [];
  for (const launch of launches) {
    if (launch.status === 'rejected') throw launch.reason;
    const { name, process } = launch.value;
    servers.push(launch.value);
    log(`started ${ctx.instance ?? name} (pid ${process.pid}) at ${process.url}`);
  }
  const differences = runtimeDifferences(servers);
  if (differences.length > 0) {
    const problem = `the servers do not run like for like: ${differences.join('; ')}`;
    if (!options.allowUnequalRuntime) throw new Error(`${problem} (see --allow-unequal-runtime)`);
    log(`WARNING: ${problem}; measuring anyway, the report fails the parity check`);
  }
  return servers;
}

/** `npm run start:prod` as package.json has it: the production runtime is read from there. */
function startProdScript(projectDir: string): string {
  const pkg = JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const script = pkg.scripts?.['start:prod'];
  if (!script) throw new Error('package.json has no start:prod script');
  return script;
}
