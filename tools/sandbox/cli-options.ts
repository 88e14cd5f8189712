import { parseArgs } from 'node:util';
import { z } from 'zod';
import { DEFAULT_DIALECT, DIALECTS, type Dialect } from './core/dialect.ts';

export const USAGE = `usage: npm run sandbox -- [options]   (an offline stand-in for the platform; docs/sandbox.md)
       npm run sandbox -- simulate [options]   (a planned batch of deliveries straight to a
                      receiver: every payload variant, forgeries, redeliveries; simulate --help)
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
  help: boolean;
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

/** Flags win over the environment; a bad value throws with every problem named. */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv): CliOptions {
  const string = { type: 'string' } as const;
  const { values: v } = parseArgs({
    args: argv,
    options: {
      help: { type: 'boolean', default: false },
      demo: { type: 'boolean', default: false },
      'bare-400': { type: 'boolean', default: false },
      port: string,
      host: string,
      state: string,
      'key-file': string,
      dialect: string,
      receiver: string,
      secret: string,
    },
  });
  const parsed = environment.safeParse({
    ...env,
    ...(v.port !== undefined && { SANDBOX_PORT: v.port }),
    ...(v.host !== undefined && { SANDBOX_HOST: v.host }),
    ...(v.state !== undefined && { SANDBOX_STATE_FILE: v.state }),
    ...(v['key-file'] !== undefined && { SANDBOX_KEY_FILE: v['key-file'] }),
    ...(v.dialect !== undefined && { SANDBOX_DIALECT: v.dialect }),
  });
  if (!parsed.success) {
    throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n'));
  }
  const e = parsed.data;
  // The demo's requests are written for the accepting default; a strict dialect would refuse
  // half of them and the demo would judge the sandbox, not the receiver.
  if (v.demo && e.SANDBOX_DIALECT !== 'any')
    throw new Error(`--dialect: --demo runs only with the dialect any, not ${e.SANDBOX_DIALECT}`);
  const receiver = v.receiver ?? 'http://127.0.0.1:3000';
  if (!/^https?:\/\/\S+$/.test(receiver))
    throw new Error(`--receiver: not an http(s) URL: ${receiver}`);
  return {
    help: v.help,
    port: e.SANDBOX_PORT,
    host: e.SANDBOX_HOST,
    mAccount: e.SANDBOX_MACCOUNT,
    apiKey: e.SANDBOX_API_KEY,
    // The demo's one retry should not keep a person waiting 30 seconds.
    retryDelayMs: e.SANDBOX_RETRY_DELAY_MS ?? (v.demo ? 2000 : 30_000),
    deliveryTimeoutMs: e.SANDBOX_DELIVERY_TIMEOUT_MS,
    ...(e.SANDBOX_STATE_FILE !== undefined && { stateFile: e.SANDBOX_STATE_FILE }),
    keyFile: e.SANDBOX_KEY_FILE,
    dialect: e.SANDBOX_DIALECT,
    bare400: v['bare-400'],
    demo: v.demo,
    receiver: receiver.replace(/\/+$/, ''),
    secret: v.secret ?? DEFAULT_DEMO_SECRET,
  };
}
