import { z } from 'zod';
import type {
  OptionDescription,
  OptionValues,
} from '../../src/lib/command-line/command-description.ts';
import { UsageError } from '../../src/lib/command-line/errors.ts';
import { readOptions } from '../../src/lib/command-line/run-command.ts';
import { DEFAULT_DIALECT, DIALECTS, type Dialect } from './core/dialect.ts';

export const USAGE = `usage: npm run sandbox -- [options]   (an offline stand-in for the platform; docs/sandbox.md)
       npm run sandbox -- simulate [options]   (a planned batch of deliveries straight to a
                      receiver: every payload variant, forgeries, redeliveries; simulate --help)
       npm run sandbox -- trigger <event> [options]   (a running sandbox makes one payment,
                      receipt, rejection or refund settlement and delivers it; trigger --help)
  --port <n>          listen port (env SANDBOX_PORT, default 8787)
  --host <addr>       listen address (env SANDBOX_HOST, default 127.0.0.1)
  --state <file>      load the state from this JSON file if it exists, save every change to it
                      (env SANDBOX_STATE_FILE; default: in memory only)
  --key-file <pem>    the signing key, made on first use (env SANDBOX_KEY_FILE,
                      default .data/sandbox-key.pem)
  --dialect <d>       which description of the platform to play (env SANDBOX_DIALECT):
                      any (default: every variant accepted), interface (only the interface
                      document's), public (only the public reference's); see docs/sandbox.md
  --demo              play a realistic day against a running receiver, print its answers, exit
  --receiver <url>    the receiver for --demo (default http://127.0.0.1:3000)
  --secret <token>    the subscription's security token for --demo, echoed as Authorisation;
                      must be in the receiver's WEBHOOK_SECRETS (default sandbox-demo-secret)
  --help              this text
environment: SANDBOX_MACCOUNT (16 digits), SANDBOX_API_KEY, SANDBOX_RETRY_DELAY_MS (default 30000;
  2000 with --demo), SANDBOX_DELIVERY_TIMEOUT_MS (default 10000)`;

const DEFAULT_MACCOUNT = '6279059700000001';
export const DEFAULT_API_KEY = 'sandbox-api-key';
const DEFAULT_DEMO_SECRET = 'sandbox-demo-secret';

const milliseconds = z.coerce.number().int().min(0).max(3_600_000);
const environment = z.object({
  SANDBOX_PORT: z.coerce.number().int().min(0).max(65_535).default(8787),
  SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
  SANDBOX_MACCOUNT: z
    .string()
    .regex(/^\d{16}$/, { error: 'must be 16 digits' })
    .default(DEFAULT_MACCOUNT),
  SANDBOX_API_KEY: z
    .string()
    .min(8, { error: 'must be at least 8 characters' })
    .max(200)
    .default(DEFAULT_API_KEY),
  SANDBOX_RETRY_DELAY_MS: milliseconds.optional(),
  SANDBOX_DELIVERY_TIMEOUT_MS: milliseconds.min(1).default(10_000),
  SANDBOX_STATE_FILE: z.string().min(1).optional(),
  SANDBOX_KEY_FILE: z.string().min(1).default('.data/sandbox-key.pem'),
  SANDBOX_DIALECT: z
    .enum(DIALECTS, { error: `must be ${DIALECTS.join(', ')} (--dialect)` })
    .default(DEFAULT_DIALECT),
});

export interface CliOptions {
  port: number;
  host: string;
  mAccount: string;
  apiKey: string;
  retryDelayMs: number;
  deliveryTimeoutMs: number;
  stateFile?: string;
  keyFile: string;
  dialect: Dialect;
  bare400: boolean;
  demo: boolean;
  receiver: string;
  secret: string;
}

/** The sandbox's flags (`npm run sandbox -- [options]`). */
export const SANDBOX_OPTIONS: readonly OptionDescription[] = [
  { flags: '--demo' },
  { flags: '--bare-400' },
  { flags: '--port <n>' },
  { flags: '--host <addr>' },
  { flags: '--state <file>' },
  { flags: '--key-file <pem>' },
  { flags: '--dialect <d>' },
  { flags: '--receiver <url>' },
  { flags: '--secret <token>' },
];

/** The sandbox's options from `argv` (its flags) and `env`, as `npm run sandbox` reads them. */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv): CliOptions {
  return sandboxOptions(readOptions(SANDBOX_OPTIONS, argv), env);
}

/**
 * The flags read (SANDBOX_OPTIONS, by commander's names) over the environment: flags win; a bad
 * value is a UsageError naming every problem.
 */
export function sandboxOptions(values: OptionValues, env: NodeJS.ProcessEnv): CliOptions {
  const flag = (name: string) => values[name] as string | undefined;
  const parsed = environment.safeParse({
    ...env,
    ...(flag('port') !== undefined && { SANDBOX_PORT: flag('port') }),
    ...(flag('host') !== undefined && { SANDBOX_HOST: flag('host') }),
    ...(flag('state') !== undefined && { SANDBOX_STATE_FILE: flag('state') }),
    ...(flag('keyFile') !== undefined && { SANDBOX_KEY_FILE: flag('keyFile') }),
    ...(flag('dialect') !== undefined && { SANDBOX_DIALECT: flag('dialect') }),
  });
  if (!parsed.success) {
    throw new UsageError(
      parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n'),
    );
  }
  const e = parsed.data;
  const demo = values.demo === true;
  // The demo's requests are written for the accepting default; a strict dialect would refuse
  // half of them and the demo would judge the sandbox, not the receiver.
  if (demo && e.SANDBOX_DIALECT !== 'any')
    throw new UsageError(
      `--dialect: --demo runs only with the dialect any, not ${e.SANDBOX_DIALECT}`,
    );
  const receiver = flag('receiver') ?? 'http://127.0.0.1:3000';
  if (!/^https?:\/\/\S+$/.test(receiver))
    throw new UsageError(`--receiver: not an http(s) URL: ${receiver}`);
  return {
    port: e.SANDBOX_PORT,
    host: e.SANDBOX_HOST,
    mAccount: e.SANDBOX_MACCOUNT,
    apiKey: e.SANDBOX_API_KEY,
    // The demo's one retry should not keep a person waiting 30 seconds.
    retryDelayMs: e.SANDBOX_RETRY_DELAY_MS ?? (demo ? 2000 : 30_000),
    deliveryTimeoutMs: e.SANDBOX_DELIVERY_TIMEOUT_MS,
    ...(e.SANDBOX_STATE_FILE !== undefined && { stateFile: e.SANDBOX_STATE_FILE }),
    keyFile: e.SANDBOX_KEY_FILE,
    dialect: e.SANDBOX_DIALECT,
    bare400: values.bare400 === true,
    demo,
    receiver: receiver.replace(/\/+$/, ''),
    secret: flag('secret') ?? DEFAULT_DEMO_SECRET,
  };
}
