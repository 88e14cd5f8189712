import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The Node runtime every server runs with: exactly what `npm run start:prod` gives the receiver
 * (its Node flags and the variables set before `node`), read from package.json so the two cannot
 * drift apart. The hand-written and bare servers get the same, so the ratios are like for like.
 */

export interface Runtime {
  /** Node flags before the script, in order. */
  readonly nodeArgs: readonly string[];
  /** The variables set before `node` (MALLOC_ARENA_MAX, ...). */
  readonly env: Readonly<Record<string, string>>;
}

export function productionRuntime(projectDir: string): Runtime {
  const pkg = JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const script = pkg.scripts?.['start:prod'];
  if (!script) throw new Error('package.json has no start:prod script');
  return runtimeOfStartScript(script);
}

/**
 * The runtime in a start script such as `MALLOC_ARENA_MAX=2 node --max-semi-space-size=2
 * dist/src/cli/main.js serve`: the variables set before `node`, the flags between `node` and the
 * script. After the script come only its own words (a command, its options), never another file.
 */
export function runtimeOfStartScript(script: string): Runtime {
  const words = script.trim().split(/\s+/);
  const node = words.indexOf('node');
  if (node < 0) throw new Error(`the start script does not run node: ${script}`);
  const env = Object.fromEntries(
    words.slice(0, node).map((word) => {
      const at = word.indexOf('=');
      if (at <= 0) throw new Error(`cannot read "${word}" in the start script: ${script}`);
      return [word.slice(0, at), word.slice(at + 1)];
    }),
  );
  // The first word after `node` that is not a flag is the script; what follows it is its own.
  const at = words.findIndex((word, i) => i > node && !word.startsWith('-'));
  const nodeArgs = words.slice(node + 1, at < 0 ? undefined : at);
  const scriptArgs = at < 0 ? [] : words.slice(at + 1);
  if (at < 0 || scriptArgs.some((word) => !/^-{0,2}[\w-]+$/.test(word))) {
    throw new Error(`cannot read the Node flags of the start script: ${script}`);
  }
  return { nodeArgs, env };
}

/** `MALLOC_ARENA_MAX=2 node --max-semi-space-size=2`, as the report prints it. */
export function describeRuntime(runtime: Runtime): string {
  const env = Object.entries(runtime.env).map(([name, value]) => `${name}=${value}`);
  return [...env, 'node', ...runtime.nodeArgs].join(' ');
}
