import type {
  CommandDescription,
  OptionValues,
} from '../../src/lib/command-line/command-description.ts';
import { UsageError } from '../../src/lib/command-line/errors.ts';
import { wholeNumber } from '../../src/lib/command-line/whole-number.ts';

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
  /** Feed endpoints the receiver hands every stored event to (a sink in the bench answers). */
  readonly feedEndpoints: number;
  /** An admin URL to the Postgres the servers store into. */
  readonly adminDatabaseUrl: string;
}

export const DEFAULT_ADMIN_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

const HELP = `Usage: npm run bench -- [options]

The receiver against a hand-written receiver and a bare Express echo, in alternating rounds on
this machine and its Postgres (docs/benchmark.md). Progress on stderr, the report on stdout.

Options:
  --rounds <n>          alternating rounds (receiver, hand-written, bare, ...) (default 5)
  --duration <seconds>  about this long per server per round (default 10)
  --connections <n>     concurrent connections (default 32)
  --json                print the result as JSON instead of the report
  --profile             the receiver alone, one round under node --cpu-prof
  --database <name>     the receiver stores into this existing, migrated database
  --feed-endpoints <n>  the receiver's feed hands every event to n endpoints, all POSTing to
                        a sink in the bench that answers 204 (default 0)
  -h, --help            this text

Environment: BENCH_DATABASE_URL, the Postgres to use (default ${DEFAULT_ADMIN_DATABASE_URL}).`;

/**
 * `npm run bench` as a command (tools/common/run-tool.ts runs it): its flags read, over `env`'s
 * BENCH_DATABASE_URL, into the options `run` gets.
 */
export function benchCommand(
  env: Record<string, string | undefined>,
  run: (options: BenchOptions) => Promise<void>,
): CommandDescription {
  return {
    name: 'bench',
    help: HELP,
    options: [
      { flags: '--rounds <n>', parse: wholeNumber(50) },
      { flags: '--duration <seconds>', parse: wholeNumber(600) },
      { flags: '--connections <n>', parse: wholeNumber(1000) },
      { flags: '--json' },
      { flags: '--profile' },
      { flags: '--database <name>', parse: plainDatabaseName },
      { flags: '--feed-endpoints <n>', parse: wholeNumber(16) },
    ],
    run: ({ options }) => run(benchOptions(options, env)),
  };
}

function benchOptions(values: OptionValues, env: Record<string, string | undefined>): BenchOptions {
  return {
    rounds: (values.rounds as number | undefined) ?? 5,
    duration: (values.duration as number | undefined) ?? 10,
    connections: (values.connections as number | undefined) ?? 32,
    json: values.json === true,
    profile: values.profile === true,
    database: values.database as string | undefined,
    feedEndpoints: (values.feedEndpoints as number | undefined) ?? 0,
    adminDatabaseUrl: env.BENCH_DATABASE_URL ?? DEFAULT_ADMIN_DATABASE_URL,
  };
}

/** A name the runner can put in SQL and a URL as it is. */
function plainDatabaseName(value: string, flag: string): string {
  if (/^[a-z_][a-z0-9_]*$/.test(value)) return value;
  throw new UsageError(`${flag} takes a plain database name, not ${value}`);
}
