import { Command, CommanderError, InvalidArgumentError } from 'commander';

export const SERVER_NAMES = ['receiver', 'hand-written', 'bare'] as const;
export type ServerName = (typeof SERVER_NAMES)[number];

export interface BenchOptions {
  readonly rounds: number;
  /** Seconds per server per round: each round sends what the server answered in that time last. */
  readonly duration: number;
  readonly connections: number;
  /** The result as JSON on stdout instead of the report. */
  readonly json: boolean;
  /** Instead of the rounds: the receiver alone, one round under `node --cpu-prof`. */
  readonly profile: boolean;
  /**
   * The receiver stores into this existing, migrated database (seed-2m.sql's) instead of a fresh
   * one; it is kept, with what the rounds add.
   */
  readonly database: string | undefined;
  /** An admin URL to the Postgres the servers store into. */
  readonly adminDatabaseUrl: string;
}

export const DEFAULT_ADMIN_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** A bad flag: commander has already printed what is wrong; the run exits 2. */
export class UsageError extends Error {}

export function parseOptions(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  output: { writeOut(text: string): void; writeErr(text: string): void } = {
    writeOut: (text) => process.stdout.write(text),
    writeErr: (text) => process.stderr.write(text),
  },
): BenchOptions | 'help' {
  const program = new Command('npm run bench --')
    .description(
      'The receiver against a hand-written receiver and a bare Express echo, in alternating ' +
        'rounds on this machine and its Postgres (docs/benchmark.md). Progress on stderr, the ' +
        'report on stdout.',
    )
    .option(
      '--rounds <n>',
      'alternating rounds (receiver, hand-written, bare, ...)',
      integer(1, 50),
      5,
    )
    .option('--duration <seconds>', 'about this long per server per round', integer(1, 600), 10)
    .option('--connections <n>', 'concurrent connections', integer(1, 1000), 32)
    .option('--json', 'print the result as JSON instead of the report')
    .option('--profile', 'the receiver alone, one round under node --cpu-prof')
    .option('--database <name>', 'the receiver stores into this existing, migrated database')
    .addHelpText(
      'after',
      `\nEnvironment: BENCH_DATABASE_URL, the Postgres to use (default ${DEFAULT_ADMIN_DATABASE_URL}).`,
    )
    .exitOverride()
    .configureOutput(output);
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError && error.exitCode === 0) return 'help';
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const v = program.opts<{
    rounds: number;
    duration: number;
    connections: number;
    json?: boolean;
    profile?: boolean;
    database?: string;
  }>();
  if (v.database !== undefined && !/^[a-z_][a-z0-9_]*$/.test(v.database)) {
    output.writeErr(`error: --database takes a plain database name, not ${v.database}\n`);
    throw new UsageError(`--database ${v.database}`);
  }
  return {
    rounds: v.rounds,
    duration: v.duration,
    connections: v.connections,
    json: v.json ?? false,
    profile: v.profile ?? false,
    database: v.database,
    adminDatabaseUrl: env.BENCH_DATABASE_URL ?? DEFAULT_ADMIN_DATABASE_URL,
  };
}

function integer(min: number, max: number): (raw: string) => number {
  return (raw) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new InvalidArgumentError(`an integer from ${min} to ${max}`);
    }
    return value;
  };
}
