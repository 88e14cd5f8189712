/**
 * npm run simulate -- [options]   (a stand-in for the platform; see docs/tools.md)
 *
 * Serves the platform's public-key endpoint and sends signed deliveries of every event and
 * payload variant to a receiver, retrying a failure once like the platform. Exit code 1 when a
 * delivery the receiver should have accepted was finally refused or lost (or a forgery was
 * accepted), 2 on bad usage.
 */
import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { isWellFormedEventName } from '../../src/receiver/index.ts';
import { startSimulator, type SimulateOptions } from './simulate.ts';
import { exitCode, formatSummary } from './summary.ts';

const USAGE = `usage: npm run simulate -- [options]
  --url <base>              receiver (default http://127.0.0.1:3000), POST <base>/webhooks/<event>
  --secret <value>          sent as Authorisation (default: none)
  --events <a,b,...>        default NPPReceivePayment,InboundDirectCreditRejections,NPPCreditRejections,NppReturn
  --count <n>               distinct notifications (default 20)
  --rate <n>                deliveries started per second, 0 = no limit (default 0)
  --concurrency <n>         requests in flight (default 4)
  --duplicate-ratio <r>     share of accepted notifications redelivered with the same Webhookid (default 0.1)
  --bad-signature-ratio <r> share signed over other bytes, expected 401 (default 0.05)
  --malformed-ratio <r>     share signed but schema-invalid, expected 400 (default 0.05)
  --retry-delay-ms <n>      one retry of a 5xx or network error, this much later (default 30000)
  --timeout-ms <n>          per request (default 30000)
  --key-port <n>            key endpoint port on --key-host (default 8787, 127.0.0.1)
  --key-file <pem>          load the private key from this PEM file; with --save-key, create it
                            (default .data/simulator-key.pem, created on first run and reused, so a
                            receiver that cached the key keeps verifying across runs)
  --keep-serving            keep the key endpoint up after sending, until Ctrl-C
  --seed <n>                the same seed sends the same bytes (default: random)
  --progress-interval-ms <n> while waiting (retries, --rate, answers), a progress line on stderr
                            at most this often (default 5000; 0: none)
  --verbose                 one line per answer
  --help                    this text`;

const DEFAULT_KEY_FILE = '.data/simulator-key.pem';

function number(name: string, text: string | undefined, fallback: number, max = Infinity): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || value > max)
    throw new Error(`--${name}: not a number in 0..${max}: ${text}`);
  return value;
}

type CliOptions = SimulateOptions & {
  keepServing: boolean;
  verbose: boolean;
  progressIntervalMs: number;
};

function parse(argv: string[]): CliOptions | 'help' {
  const string = { type: 'string' } as const;
  const flag = { type: 'boolean', default: false } as const;
  const { values: v } = parseArgs({
    args: argv,
    options: {
      url: string,
      secret: string,
      events: string,
      count: string,
      rate: string,
      concurrency: string,
      'duplicate-ratio': string,
      'bad-signature-ratio': string,
      'malformed-ratio': string,
      'retry-delay-ms': string,
      'timeout-ms': string,
      'key-port': string,
      'key-host': string,
      'key-file': string,
      'save-key': flag,
      'keep-serving': flag,
      seed: string,
      'progress-interval-ms': string,
      verbose: flag,
      help: flag,
    },
  });
  if (v.help) return 'help';
  const events = v.events
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of events ?? []) {
    if (!isWellFormedEventName(name)) throw new Error(`--events: not an event name: ${name}`);
  }
  return {
    url: v.url ?? 'http://127.0.0.1:3000',
    ...(v.secret !== undefined && { secret: v.secret }),
    ...(events && { events }),
    count: Math.floor(number('count', v.count, 20, 100_000)),
    rate: number('rate', v.rate, 0),
    concurrency: Math.max(1, Math.floor(number('concurrency', v.concurrency, 4, 1000))),
    duplicateRatio: number('duplicate-ratio', v['duplicate-ratio'], 0.1, 1),
    badSignatureRatio: number('bad-signature-ratio', v['bad-signature-ratio'], 0.05, 1),
    malformedRatio: number('malformed-ratio', v['malformed-ratio'], 0.05, 1),
    retryDelayMs: number('retry-delay-ms', v['retry-delay-ms'], 30_000),
    timeoutMs: number('timeout-ms', v['timeout-ms'], 30_000),
    keyPort: number('key-port', v['key-port'], 8787, 65_535),
    keyHost: v['key-host'] ?? '127.0.0.1',
    keyFile: v['key-file'] ?? DEFAULT_KEY_FILE,
    saveKey: v['key-file'] === undefined || v['save-key'],
    keepServing: v['keep-serving'],
    verbose: v.verbose,
    progressIntervalMs: number('progress-interval-ms', v['progress-interval-ms'], 5000),
    seed: number('seed', v.seed, randomInt(2 ** 31), 2 ** 32 - 1),
  };
}

async function main(): Promise<number> {
  let options: CliOptions;
  try {
    const parsed = parse(process.argv.slice(2));
    if (parsed === 'help') {
      console.log(USAGE);
      return 0;
    }
    options = parsed;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const simulator = await startSimulator({
    ...options,
    progress: {
      intervalMs: options.progressIntervalMs,
      write: (line) => process.stderr.write(`${line}\n`),
    },
    ...(options.verbose && {
      onAttempt: (send, status, retry) =>
        console.log(
          `${status ?? 'ERR'} ${send.notification.eventName} ${send.notification.variant} Webhookid ${send.notification.webhookId}${send.duplicate ? ' redelivery' : ''}${retry ? ' retry' : ''}`,
        ),
    }),
  });
  console.log(
    `key endpoint: ${simulator.keyServer.url} (${simulator.keyOrigin} key, fingerprint ${simulator.fingerprint.slice(0, 16)}...)`,
  );
  console.log(`sending to ${options.url}/webhooks/<event> (seed ${options.seed})`);
  const summary = await simulator.run();
  console.log(formatSummary(summary));
  if (options.keepServing) {
    console.log('key endpoint still up (--keep-serving); Ctrl-C to stop');
    await new Promise((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
  }
  await simulator.keyServer.close();
  return exitCode(summary);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`simulate failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
