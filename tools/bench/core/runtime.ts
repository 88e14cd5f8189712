/**
 * The Node runtime every server runs with: its Node flags and the environment variables that
 * change how Node, V8 or glibc behave (not the servers' own settings). Ratios between servers
 * are only like for like when this is the same for all of them, so the run records it per server
 * and refuses to measure when the servers differ.
 */

export interface Runtime {
  /** Node flags before the script, in order. */
  readonly nodeArgs: readonly string[];
  /** The runtime variables only (NODE_ENV, MALLOC_ARENA_MAX, ...), sorted by name. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * `production`: exactly what `npm run start:prod` gives the receiver, read from package.json so
 * the two cannot drift apart; `node-defaults`: Node's and glibc's own defaults.
 */
export const RUNTIME_PRESET_NAMES = ['production', 'node-defaults'] as const;
export type RuntimePreset = (typeof RUNTIME_PRESET_NAMES)[number];

export function isRuntimePreset(name: string): name is RuntimePreset {
  return (RUNTIME_PRESET_NAMES as readonly string[]).includes(name);
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

/**
 * Variables that change the runtime rather than the application: Node (NODE_ENV, NODE_OPTIONS),
 * libuv (UV_THREADPOOL_SIZE), glibc's allocator (MALLOC_ARENA_MAX, GLIBC_TUNABLES), the loader.
 */
const RUNTIME_VARIABLE = /^(NODE_|UV_|MALLOC_|GLIBC_|LD_|V8_)|^TZ$/;

/**
 * The Node flags and runtime variables for every server: the preset plus BENCH_NODE_ARGS
 * (e.g. "--max-old-space-size=96"), which goes to every server alike.
 */
export function sharedRuntime(
  preset: RuntimePreset,
  startProdScript: string,
  extraNodeArgs: string | undefined,
): Runtime {
  const chosen = preset === 'production' ? runtimeOfStartScript(startProdScript) : undefined;
  return {
    nodeArgs: [...(chosen?.nodeArgs ?? []), ...(extraNodeArgs ?? '').split(' ').filter(Boolean)],
    env: { ...chosen?.env },
  };
}

/** What a launched process actually got: its flags and the runtime part of its environment. */
export function runtimeOf(nodeArgs: readonly string[], env: Record<string, string>): Runtime {
  const picked = Object.keys(env)
    .filter((name) => RUNTIME_VARIABLE.test(name))
    .sort()
    .map((name) => [name, env[name] ?? ''] as const);
  return { nodeArgs: [...nodeArgs], env: Object.fromEntries(picked) };
}

export function describeRuntime(runtime: Runtime): { flags: string; env: string } {
  const env = Object.entries(runtime.env).map(([name, value]) => `${name}=${value}`);
  return {
    flags: runtime.nodeArgs.length > 0 ? runtime.nodeArgs.join(' ') : '(none)',
    env: env.length > 0 ? env.join(' ') : '(none)',
  };
}

/**
 * How the servers' runtimes differ from the first one's: one line per difference, empty when
 * every server ran alike.
 */
export function runtimeDifferences(
  servers: readonly { name: string; runtime: Runtime }[],
): string[] {
  const [first, ...rest] = servers;
  if (!first) return [];
  const base = describeRuntime(first.runtime);
  return rest.flatMap(({ name, runtime }) => {
    const own = describeRuntime(runtime);
    return [
      ...(own.flags === base.flags
        ? []
        : [`${name} runs with Node flags "${own.flags}", ${first.name} with "${base.flags}"`]),
      ...(own.env === base.env
        ? []
        : [`${name} runs with environment "${own.env}", ${first.name} with "${base.env}"`]),
    ];
  });
}
