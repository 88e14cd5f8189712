import { randomInt } from 'node:crypto';
import type {
  OptionDescription,
  OptionValues,
} from '../../../src/lib/command-line/command-description.ts';
import { UsageError } from '../../../src/lib/command-line/errors.ts';
import { isWellFormedEventName } from '../../../src/receiver/contract.ts';
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
};

/** The `simulate` subcommand's flags. */
export const SIMULATE_OPTIONS: readonly OptionDescription[] = [
  '--url <base>',
  '--secret <value>',
  '--events <names>',
  '--count <n>',
  '--rate <n>',
  '--concurrency <n>',
  '--duplicate-ratio <r>',
  '--bad-signature-ratio <r>',
  '--malformed-ratio <r>',
  '--retry-delay-ms <n>',
  '--timeout-ms <n>',
  // The sandbox's own, for its options (SANDBOX_OPTIONS).
  '--port <n>',
  '--host <addr>',
  '--key-file <pem>',
  '--keep-serving',
  '--seed <n>',
  '--progress-interval-ms <n>',
  '--verbose',
].map((flags) => ({ flags }));

function number(name: string, text: unknown, fallback: number, max = Infinity): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || value > max)
    throw new UsageError(`--${name}: not a number in 0..${max}: ${String(text)}`);
  return value;
}

/** The `simulate` subcommand's options from its flags read (by commander's names); a bad value is a UsageError naming it. */
export function simulateOptions(v: OptionValues): SimulateCliOptions {
  const events = (v.events as string | undefined)
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of events ?? []) {
    if (!isWellFormedEventName(name)) throw new UsageError(`--events: not an event name: ${name}`);
  }
  return {
    url: (v.url as string | undefined) ?? 'http://127.0.0.1:3000',
    ...(v.secret !== undefined && { secret: v.secret as string }),
    ...(events && { events }),
    count: Math.floor(number('count', v.count, 20, 100_000)),
    rate: number('rate', v.rate, 0),
    concurrency: Math.max(1, Math.floor(number('concurrency', v.concurrency, 4, 1000))),
    duplicateRatio: number('duplicate-ratio', v.duplicateRatio, 0.1, 1),
    badSignatureRatio: number('bad-signature-ratio', v.badSignatureRatio, 0.05, 1),
    malformedRatio: number('malformed-ratio', v.malformedRatio, 0.05, 1),
    retryDelayMs: number('retry-delay-ms', v.retryDelayMs, 30_000),
    timeoutMs: number('timeout-ms', v.timeoutMs, 30_000),
    keepServing: v.keepServing === true,
    verbose: v.verbose === true,
    progressIntervalMs: number('progress-interval-ms', v.progressIntervalMs, 5000),
    seed: number('seed', v.seed, randomInt(2 ** 31), 2 ** 32 - 1),
  };
}
