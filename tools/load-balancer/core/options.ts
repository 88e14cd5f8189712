import type {
  CommandDescription,
  OptionValues,
} from '../../../src/lib/command-line/command-description.ts';
import { UsageError } from '../../../src/lib/command-line/errors.ts';

const SCENARIOS = ['A', 'B', 'C', 'D'] as const;
type ScenarioName = (typeof SCENARIOS)[number];

export interface Options {
  scenarios: ScenarioName[];
  /** Scenario A: sends in all, duplicates included. */
  deliveries: number;
  /** Scenarios B and C: deliveries at least (the load also runs until the fault is over). */
  faultDeliveries: number;
  concurrency: number;
  /** Share of A's sends that repeat an earlier delivery (same Webhookid and body). */
  duplicateShare: number;
  /** Scenarios B and C: deliveries per second offered, like a platform that does not speed up when we fail. */
  rate: number;
  /** The platform's one retry comes 30 s later; scaled down to keep the run short. */
  retryDelayMs: number;
  outageMs: number;
  /** Scenario D: payments the sandbox makes (one notification each). */
  chainPayments: number;
  /** Scenario D: payments per second the sandbox makes. */
  chainRate: number;
  /** Scenario D: how long the feed consumer refuses (first half) and then stops answering. */
  consumerDownMs: number;
  logLevel: string;
  keep: boolean;
  maxSeconds: number;
}

const HELP = `npm run test:lb -- [flags]

  --scenario=A,B,C,D    which scenarios (default all): A duplicates across instances,
                        B restart under load (SIGTERM, then SIGKILL), C database outage,
                        D the whole chain (sandbox -> nginx -> receivers -> feed -> consumer,
                        with a SIGKILL, a database cut, a consumer outage, then recovery)
  --deliveries=N        scenario A sends, duplicates included (default 3000)
  --fault-deliveries=N  scenarios B and C: at least this many deliveries (default 1500)
  --concurrency=N       requests in flight (default 64)
  --duplicates=F        share of A's sends that repeat another delivery (default 0.3)
  --rate=N              B and C: deliveries offered per second (default 250)
  --retry-delay-ms=N    the sender's (D: the sandbox's) one retry, stand-in for the platform's
                        30 s (default 1500)
  --outage-ms=N         C and D: how long the database is cut off (default 3000)
  --chain-payments=N    D: payments the sandbox makes (default 500)
  --chain-rate=N        D: payments per second (default 30)
  --consumer-down-ms=N  D: the feed consumer answers 503, then nothing, this long (default 4000)
  --log-level=L         receivers' LOG_LEVEL (default warn)
  --keep                keep the temporary folder (logs, nginx config) for inspection
  --max-seconds=N       give up and clean up after this long (default 300)
  -h, --help            this text`;

/**
 * `npm run test:lb` as a command (tools/common/run-tool.ts runs it): its flags read, with their
 * defaults, into the options `run` gets.
 */
export function loadBalancerCommand(run: (options: Options) => Promise<void>): CommandDescription {
  return {
    name: 'test:lb',
    help: HELP,
    options: [
      { flags: '--scenario <list>', parse: scenarioList },
      { flags: '--deliveries <n>', parse: count(1, 200_000) },
      { flags: '--fault-deliveries <n>', parse: count(1, 200_000) },
      { flags: '--concurrency <n>', parse: count(1, 512) },
      { flags: '--duplicates <share>', parse: share },
      { flags: '--rate <n>', parse: count(1, 10_000) },
      { flags: '--retry-delay-ms <n>', parse: count(0, 60_000) },
      { flags: '--outage-ms <n>', parse: count(100, 60_000) },
      { flags: '--chain-payments <n>', parse: count(10, 5000) },
      { flags: '--chain-rate <n>', parse: count(1, 500) },
      { flags: '--consumer-down-ms <n>', parse: count(200, 60_000) },
      { flags: '--log-level <level>' },
      { flags: '--keep' },
      { flags: '--max-seconds <n>', parse: count(10, 3600) },
    ],
    run: ({ options }) => run(loadBalancerOptions(options)),
  };
}

/** The flags read (by commander's names), each missing one its default. */
function loadBalancerOptions(values: OptionValues): Options {
  const number = (name: string, otherwise: number) =>
    (values[name] as number | undefined) ?? otherwise;
  const chainPayments = number('chainPayments', 500);
  const chainRate = number('chainRate', 30);
  if (chainPayments / chainRate > 120) {
    throw new UsageError('--chain-payments / --chain-rate: the load may last at most 120 s');
  }
  return {
    scenarios: (values.scenario as ScenarioName[] | undefined) ?? [...SCENARIOS],
    deliveries: number('deliveries', 3000),
    faultDeliveries: number('faultDeliveries', 1500),
    concurrency: number('concurrency', 64),
    duplicateShare: number('duplicates', 0.3),
    rate: number('rate', 250),
    retryDelayMs: number('retryDelayMs', 1500),
    outageMs: number('outageMs', 3000),
    chainPayments,
    chainRate,
    consumerDownMs: number('consumerDownMs', 4000),
    logLevel: (values.logLevel as string | undefined) ?? 'warn',
    keep: values.keep === true,
    maxSeconds: number('maxSeconds', 300),
  };
}

/** `A,c, B`: the scenarios named, in the order they run (D last). */
function scenarioList(raw: string, flag: string): ScenarioName[] {
  const scenarios = raw.split(',').map((name) => name.trim().toUpperCase());
  const unknown = scenarios.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
  if (unknown.length > 0 || scenarios.length === 0) {
    throw new UsageError(`${flag}: unknown ${unknown.join(', ')} (use A, B, C, D)`);
  }
  return SCENARIOS.filter((name) => scenarios.includes(name));
}

function count(min: number, max: number): (raw: string, flag: string) => number {
  return (raw, flag) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new UsageError(`${flag}: expected a whole number from ${min} to ${max}, got "${raw}"`);
    }
    return value;
  };
}

function share(raw: string, flag: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 0.9) {
    throw new UsageError(`${flag}: expected a share from 0 to 0.9, got "${raw}"`);
  }
  return value;
}
