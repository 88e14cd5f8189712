import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { isWellFormedEventName } from '../../../src/receiver/index.ts';
import type { SimulateOptions } from './simulate.ts';

export const SIMULATE_USAGE = `usage: npm run sandbox -- simulate [options]   (or: npm run simulate -- [options])
  Starts the sandbox (its key endpoint among the rest) and sends a planned batch of signed
  deliveries of every event and payload variant to a receiver, retrying a failure once like the
  platform; see docs/tools.md.
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
  --port <n>, --host <addr> where the sandbox listens, key endpoint included (as npm run sandbox:
                            env SANDBOX_PORT, SANDBOX_HOST; default 8787 on 127.0.0.1)
  --key-file <pem>          the signing key, made on first use and reused, so a receiver that
                            cached it keeps verifying across runs (env SANDBOX_KEY_FILE,
                            default .data/sandbox-key.pem)
  --keep-serving            keep the sandbox up after sending, until Ctrl-C
  --seed <n>                the same seed sends the same bytes (default: random)
  --progress-interval-ms <n> while waiting (retries, --rate, answers), a progress line on stderr
                            at most this often (default 5000; 0: none)
  --verbose                 one line per answer
  --help                    this text
Exit code 1 when a delivery the receiver should have accepted was finally refused or lost (or a
forgery was accepted), 2 on bad usage.`;

export type SimulateCliOptions = SimulateOptions & {
  keepServing: boolean;
  verbose: boolean;
  progressIntervalMs: number;
  /** The sandbox's own flags given (--port, --host, --key-file), for its option parser. */
  sandboxArgs: string[];
};

function number(name: string, text: string | undefined, fallback: number, max = Infinity): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || value > max)
    throw new Error(`--${name}: not a number in 0..${max}: ${text}`);
  return value;
}

/** The `simulate` sub-command's flags; a bad value throws, naming it. */
export function parseSimulateCli(argv: string[]): SimulateCliOptions | 'help' {
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
      port: string,
      host: string,
      'key-file': string,
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
  const sandboxArgs = (['port', 'host', 'key-file'] as const).flatMap((name) =>
    v[name] === undefined ? [] : [`--${name}`, v[name]],
  );
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
    keepServing: v['keep-serving'],
    verbose: v.verbose,
    progressIntervalMs: number('progress-interval-ms', v['progress-interval-ms'], 5000),
    seed: number('seed', v.seed, randomInt(2 ** 31), 2 ** 32 - 1),
    sandboxArgs,
  };
}
