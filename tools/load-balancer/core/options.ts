import { parseArgs } from 'node:util';

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
`;

export class UsageError extends Error {}

export function parseOptions(argv: string[]): Options | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      scenario: { type: 'string', default: 'A,B,C,D' },
      deliveries: { type: 'string', default: '3000' },
      'fault-deliveries': { type: 'string', default: '1500' },
      concurrency: { type: 'string', default: '64' },
      duplicates: { type: 'string', default: '0.3' },
      rate: { type: 'string', default: '250' },
      'retry-delay-ms': { type: 'string', default: '1500' },
      'outage-ms': { type: 'string', default: '3000' },
      'chain-payments': { type: 'string', default: '500' },
      'chain-rate': { type: 'string', default: '30' },
      'consumer-down-ms': { type: 'string', default: '4000' },
      'log-level': { type: 'string', default: 'warn' },
      keep: { type: 'boolean', default: false },
      'max-seconds': { type: 'string', default: '300' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const scenarios = values.scenario.split(',').map((name) => name.trim().toUpperCase());
  const unknown = scenarios.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
  if (unknown.length > 0 || scenarios.length === 0) {
    throw new UsageError(`--scenario: unknown ${unknown.join(', ')} (use A, B, C, D)`);
  }
  const chainPayments = count('chain-payments', values['chain-payments'], 10, 5000);
  const chainRate = count('chain-rate', values['chain-rate'], 1, 500);
  if (chainPayments / chainRate > 120) {
    throw new UsageError('--chain-payments / --chain-rate: the load may last at most 120 s');
  }
  return {
    scenarios: SCENARIOS.filter((name) => scenarios.includes(name)),
    deliveries: count('deliveries', values.deliveries, 1, 200_000),
    faultDeliveries: count('fault-deliveries', values['fault-deliveries'], 1, 200_000),
    concurrency: count('concurrency', values.concurrency, 1, 512),
    duplicateShare: share('duplicates', values.duplicates),
    rate: count('rate', values.rate, 1, 10_000),
    retryDelayMs: count('retry-delay-ms', values['retry-delay-ms'], 0, 60_000),
    outageMs: count('outage-ms', values['outage-ms'], 100, 60_000),
    chainPayments,
    chainRate,
    consumerDownMs: count('consumer-down-ms', values['consumer-down-ms'], 200, 60_000),
    logLevel: values['log-level'],
    keep: values.keep,
    maxSeconds: count('max-seconds', values['max-seconds'], 10, 3600),
  };
}

export function usage(): string {
  return HELP;
}

function count(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name}: expected a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function share(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 0.9) {
    throw new UsageError(`--${name}: expected a share from 0 to 0.9, got "${raw}"`);
  }
  return value;
}
