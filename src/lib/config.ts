import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';
import { z } from 'zod';
import { PUBLIC_KEY_PATH } from './platform-key.ts';
import { parseWebhookSecret } from './webhook-secret.ts';

/**
 * Configuration is one pure function over the environment. Every variable is declared once, in
 * `envSchema` below: its parse, its default and its documentation, from which the README's table
 * and `.env.example` are generated. Every bad key is reported at once, by name, so an operator
 * fixes a deployment in one go instead of one restart per typo.
 */

/** `local`: this project's offline sandbox (`npm run sandbox`) on its default address. */
const LOCAL_SANDBOX_URL = 'http://127.0.0.1:8787';

const PROVIDER_BASE_URLS = {
  local: LOCAL_SANDBOX_URL,
  sandbox: 'https://api.m-pay.com.au',
  production: 'https://api.mpay.com.au',
} as const;

/** Where the platform issues bearer tokens (a different host from the payments API). */
const PROVIDER_AUTH_URLS = {
  local: LOCAL_SANDBOX_URL,
  sandbox: 'https://sand-api.monoova.com',
  production: 'https://api.monoova.com',
} as const;

type ProviderEnv = keyof typeof PROVIDER_BASE_URLS;

/** This machine, as a URL's hostname spells it: plain http is safe only to these. */
const isLoopbackHost = (hostname: string) => ['127.0.0.1', 'localhost', '[::1]'].includes(hostname);

/**
 * Which of the three worlds a URL belongs to: this machine, the platform's sandbox, its
 * production, or a host of the operator's own (a proxy, say).
 */
function worldOf(text: string): ProviderEnv | 'own host' {
  const url = new URL(text);
  if (isLoopbackHost(url.hostname)) return 'local';
  for (const env of ['sandbox', 'production'] as const) {
    const hosts = [PROVIDER_BASE_URLS[env], PROVIDER_AUTH_URLS[env]].map((u) => new URL(u).host);
    if (hosts.includes(url.host)) return env;
  }
  return 'own host';
}

/**
 * The API key (and the mAccount, at sign-in) travel to both URLs, so both must be in one world:
 * a local PROVIDER_BASE_URL beside a token host derived for production would send the
 * credentials to production, where refused sign-ins lock the account.
 */
function providerWorldProblems(e: {
  PROVIDER_ENV: ProviderEnv;
  PROVIDER_BASE_URL?: string | undefined;
  PROVIDER_AUTH_URL?: string | undefined;
}): string[] {
  const base = e.PROVIDER_BASE_URL ?? PROVIDER_BASE_URLS[e.PROVIDER_ENV];
  const auth = e.PROVIDER_AUTH_URL ?? PROVIDER_AUTH_URLS[e.PROVIDER_ENV];
  const [baseWorld, authWorld] = [worldOf(base), worldOf(auth)];
  if (baseWorld === authWorld) return [];
  const said = (name: string, value: string | undefined, world: string) =>
    `${name} (${value === undefined ? `from PROVIDER_ENV=${e.PROVIDER_ENV}` : 'set'}: ${world})`;
  return [
    `PROVIDER_BASE_URL, PROVIDER_AUTH_URL: must point at one platform: ${said('PROVIDER_BASE_URL', e.PROVIDER_BASE_URL, baseWorld)} but ${said('PROVIDER_AUTH_URL', e.PROVIDER_AUTH_URL, authWorld)}; set PROVIDER_ENV (local, sandbox or production) alone, or both URLs`,
  ];
}

/**
 * The signing key decides whose deliveries are trusted: a key URL on the other platform's host
 * (the sandbox's key beside PROVIDER_ENV=production, or the reverse) would let a production
 * receiver accept sandbox-signed deliveries. Checked when the platform was chosen explicitly
 * (PROVIDER_ENV or PROVIDER_BASE_URL set): a receiver that only sets SIGNING_KEY_URL and leaves
 * PROVIDER_ENV at its default has chosen its platform by that URL alone.
 */
function signingKeyWorldProblems(
  e: {
    PROVIDER_ENV: ProviderEnv;
    PROVIDER_BASE_URL?: string | undefined;
    SIGNING_KEY_URL?: string | undefined;
  },
  given: Record<string, string>,
): string[] {
  if (e.SIGNING_KEY_URL === undefined) return [];
  if (given.PROVIDER_ENV === undefined && given.PROVIDER_BASE_URL === undefined) return [];
  const platforms = ['sandbox', 'production'];
  const platformWorld = worldOf(e.PROVIDER_BASE_URL ?? PROVIDER_BASE_URLS[e.PROVIDER_ENV]);
  const keyWorld = worldOf(e.SIGNING_KEY_URL);
  if (!platforms.includes(platformWorld) || !platforms.includes(keyWorld)) return [];
  if (platformWorld === keyWorld) return [];
  const chosenBy =
    e.PROVIDER_BASE_URL === undefined
      ? `PROVIDER_ENV=${e.PROVIDER_ENV}`
      : `PROVIDER_BASE_URL (set: ${platformWorld}, PROVIDER_ENV=${e.PROVIDER_ENV})`;
  return [
    `PROVIDER_ENV, SIGNING_KEY_URL: must point at one platform: ${chosenBy} but SIGNING_KEY_URL is the ${keyWorld} platform's host (${new URL(e.SIGNING_KEY_URL).host}), so deliveries signed by the ${keyWorld} platform would be trusted; unset SIGNING_KEY_URL (it derives from PROVIDER_ENV) or point it at the ${platformWorld} platform`,
  ];
}

const MIB = 1024 * 1024;

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/**
 * A function, not one schema: `.register` documents the very object it is called on, so each
 * variable needs its own (`.optional()` and `.default()` make a new one already).
 */
const optionalText = () => z.string().trim().optional();

/** An interface to listen on: an IP address or a host name (no scheme, no port). */
const listenHost = z
  .string()
  .trim()
  .refine((host) => isIP(host) !== 0 || /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(host), {
    error: 'must be an IP address or a host name',
  });

/**
 * Express `trust proxy`, checked here with proxy-addr (what Express compiles it with), so a typo
 * stops the start-up by name instead of crashing it later, after the database has started.
 */
const trustProxy = z
  .string()
  .trim()
  .transform((raw, ctx) => {
    const value = parseTrustProxy(raw);
    if (typeof value !== 'string') return value;
    try {
      proxyaddr.compile(value.split(',').map((part) => part.trim()));
      return value;
    } catch (error) {
      ctx.issues.push({
        code: 'custom',
        input: raw,
        message: `${error instanceof Error ? error.message : 'unreadable'}; expected true, false, a hop count, or addresses/subnets ("loopback, 10.0.0.0/8")`,
      });
      return z.NEVER;
    }
  });

/**
 * Which description of the platform the provider client speaks (src/platform/client/protocol/dialect.ts):
 * `auto` finds out; `interface` or `public` pins one.
 */
const DIALECT_SETTINGS = ['auto', 'interface', 'public'] as const;
export type DialectSetting = (typeof DIALECT_SETTINGS)[number];

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** Credentials travel to these: https, or plain http to this machine only (a local sandbox). */
const providerUrl = httpUrl
  .refine(
    isSafeProviderUrl,
    'must be https (plain http only to 127.0.0.1, localhost or [::1]), without credentials',
  )
  .transform((url) => url.replace(/\/+$/, ''));

function isSafeProviderUrl(text: string): boolean {
  const url = new URL(text);
  if (url.username !== '' || url.password !== '') return false;
  return url.protocol === 'https:' || isLoopbackHost(url.hostname);
}

/**
 * What the README's configuration table and `.env.example` say about a variable. Both files are
 * generated from the declaration below (`npm run docs:config`, tools/docs/), and a test fails
 * when either is stale.
 */
interface VariableDoc {
  /** The README table's "meaning", and the comment above the variable in `.env.example`. */
  readonly doc: string;
  /** May come from `NAME_FILE` (a mounted secret); its value is never shown, only `example`. */
  readonly secret?: true;
  /** The README's default column where the schema has none (`_(unset)_` otherwise). */
  readonly defaultText?: string;
  /** `.env.example`'s value (commented out) for a variable without a default. */
  readonly example?: string;
  /** Starts a section of `.env.example`: its title, and a note shown above its first variable. */
  readonly section?: string;
  readonly sectionNote?: string;
  /**
   * For a development machine only (the embedded Postgres): docker-compose.yml does not pass it
   * to the containers, whose image has no embedded Postgres.
   */
  readonly developmentOnly?: true;
}

const described = z.registry<VariableDoc>();

/**
 * Every variable, once: its name, its parse (type, bounds, default) and what the documentation
 * says about it. A variable is added here, and read where the code needs it in `loadConfig`
 * below; the README's table and `.env.example` follow with `npm run docs:config`. The order is
 * the README table's.
 */
const envSchema = z.object({
  PORT: integer(0, 65_535).default(3000).register(described, { doc: 'HTTP port', section: 'HTTP' }),
  HOST: listenHost
    .default('0.0.0.0')
    .register(described, { doc: 'interface to listen on (an IP address or host name)' }),
  DATABASE_URL: z
    .string()
    .trim()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional()
    .register(described, {
      doc: 'Postgres 15+ URL. Unset: embedded Postgres (below)',
      secret: true,
      example: 'postgres://receiver:secret@db.internal:5432/receiver',
      section: 'Database',
    }),
  DATABASE_POOL_MAX: integer(1, 1000)
    .default(10)
    .register(described, { doc: 'connections per instance' }),
  MIGRATE_ON_START: flag.default(true).register(described, {
    doc: 'apply migrations at start; `false` where a migration job runs first (the receiver then only checks the schema is current, and exits 2 if not)',
  }),
  DATABASE_CONNECTION_TIMEOUT_MS: integer(100, 120_000).default(5000).register(described, {
    doc: 'give up connecting after this long: a dead database becomes a 500 (retried), not a hang',
  }),
  DATABASE_STATEMENT_TIMEOUT_MS: integer(100, 600_000).default(10_000).register(described, {
    doc: 'server-side statement timeout for deliveries (migrations run without it)',
  }),
  WRITE_CONCURRENCY: integer(1, 1000)
    .default(1)
    .register(described, { doc: 'group commit: statements writing deliveries at once' }),
  WRITE_BATCH_MAX: integer(1, 10_000)
    .default(100)
    .register(described, { doc: 'group commit: the most deliveries in one statement' }),
  EMBEDDED_POSTGRES_DIR: z.string().trim().min(1).default('.data/postgres').register(described, {
    doc: "embedded cluster's data, relative to the project",
    developmentOnly: true,
  }),
  EMBEDDED_POSTGRES_PORT: integer(1, 65_535).default(54329).register(described, {
    doc: "embedded cluster's port (localhost only)",
    developmentOnly: true,
  }),
  PROVIDER_ENV: z
    .enum(['local', 'sandbox', 'production'])
    .default('production')
    .register(described, {
      doc: 'one setting for every platform URL: `local` (`npm run sandbox` on `http://127.0.0.1:8787`), `sandbox` (`https://api.m-pay.com.au`) or `production`',
      section: 'The platform: where it is, and its API (provider client, recovery, refunds)',
      sectionNote:
        'A refused sign-in (PROVIDER_API_KEY with PROVIDER_MACCOUNT) is never retried, since the platform locks the account: fix the value and restart.',
    }),
  SIGNING_KEY_URL: httpUrl.optional().register(described, {
    doc: "`{PROVIDER_BASE_URL}/public/v1/certificate/public-key`; https only. On the other platform's host than `PROVIDER_ENV` (or `PROVIDER_BASE_URL`) chose (the sandbox's key with `production`, or the reverse): refused at start",
    defaultText: 'derived from `PROVIDER_ENV`',
    example: `${PROVIDER_BASE_URLS.production}${PUBLIC_KEY_PATH}`,
  }),
  PROVIDER_BASE_URL: providerUrl.optional().register(described, {
    doc: "the platform's API (`https://api.mpay.com.au` / `https://api.m-pay.com.au`); https, or http to 127.0.0.1/localhost only",
    defaultText: 'derived from `PROVIDER_ENV`',
    example: PROVIDER_BASE_URLS.production,
  }),
  PROVIDER_AUTH_URL: providerUrl.optional().register(described, {
    doc: 'token issuer (`https://api.monoova.com` / `https://sand-api.monoova.com`); same rule. Both URLs must point at one platform (local, sandbox, production or your own host): a mix is refused at start',
    defaultText: 'derived from `PROVIDER_ENV`',
    example: PROVIDER_AUTH_URLS.production,
  }),
  PROVIDER_API_KEY: optionalText().register(described, {
    doc: 'secret: the API key for the client, recovery and refunds. Unset: those are off',
    secret: true,
  }),
  PROVIDER_MACCOUNT: optionalText().register(described, {
    doc: 'mAccount number, for the bearer token (`npm run provider -- token`). Unset: recovery skips PayTo',
    secret: true,
  }),
  PROVIDER_TIMEOUT_MS: integer(100, 120_000)
    .default(15_000)
    .register(described, { doc: 'timeout for each attempt of a platform call' }),
  PROVIDER_DIALECT: z.enum(DIALECT_SETTINGS).default('auto').register(described, {
    doc: '`auto`: interface document first, the public reference once after a refusal that proves nothing was done; `interface` or `public`: pinned, no fallback',
  }),
  RECOVERY_INTERVAL_MS: integer(0, 86_400_000).default(300_000).register(described, {
    doc: 'scheduled recovery, least time between runs (the first one interval after start); `0`: off (always off without `PROVIDER_API_KEY`)',
  }),
  RETENTION_RAW_DAYS: integer(0, 36_500).default(90).register(described, {
    doc: "days a delivery's raw request (`raw_body`, `headers`, `payload`: payer details) is kept, and a handled quarantine row's body after handling; never while one of its feed events is not handed on or it is part of an open conflict; `0`: for ever ([docs/retention.md](docs/retention.md))",
    section: 'Retention (docs/retention.md)',
    sectionNote:
      'Typed rows, conflicts, refunds, open quarantine rows and feed events not yet handed on are never pruned.',
  }),
  RETENTION_FEED_DAYS: integer(0, 36_500).default(30).register(described, {
    doc: 'days a feed event is kept after the relay sent it (from the start of the feed only; pending and dead events never go, and without a relay none does); `0`: for ever',
  }),
  RETENTION_RECOVERY_DAYS: integer(0, 36_500).default(90).register(described, {
    doc: 'days recovery attempts, runs, unreadable report rows and progress are kept; `0`: for ever',
  }),
  RETENTION_INTERVAL_MS: integer(0, 604_800_000).default(3_600_000).register(described, {
    doc: 'scheduled prune, least time between runs, one instance at a time; `0`: off (`npm run prune` still works)',
  }),
  RETENTION_BATCH_SIZE: integer(1, 10_000)
    .default(1000)
    .register(described, { doc: 'rows per prune batch (one short transaction each)' }),
  RETENTION_BATCH_PAUSE_MS: integer(0, 60_000)
    .default(100)
    .register(described, { doc: 'pause between prune batches' }),
  RETENTION_RUN_MAX_MS: integer(1000, 86_400_000).default(300_000).register(described, {
    doc: 'a prune run starts no batch after this long; the next run goes on',
  }),
  SIGNING_KEY: optionalText().register(described, {
    doc: 'pinned key: hex DER (PKCS#1 or SPKI), PEM (`PUBLIC KEY`, `RSA PUBLIC KEY`, `CERTIFICATE`) or JWK. Overrides the URL. RSA ≥ 2048 bits; private keys refused',
    secret: true,
    example: '3082010A0282010100...0203010001',
    section: "The platform's signing key",
  }),
  SIGNING_KEY_ALLOW_HTTP: flag
    .default(false)
    .register(described, { doc: 'allow an `http:` key URL (local tests only)' }),
  // Both bounded so a refetch after a failed signature always completes well inside the 30 s
  // before the platform retries a delivery signed with a rotated key.
  SIGNING_KEY_FETCH_TIMEOUT_MS: integer(100, 10_000)
    .default(5000)
    .register(described, { doc: 'timeout for each key fetch (at most 10000)' }),
  SIGNING_KEY_REFRESH_COOLDOWN_MS: integer(1000, 10_000).default(5000).register(described, {
    doc: 'after a failed signature, refetch unless a fetch began less than this ago (1000–10000)',
  }),
  SIGNING_KEY_RETRY_INTERVAL_MS: integer(0, 3_600_000).default(1000).register(described, {
    doc: 'while no key is held, least time between fetches a delivery may cause',
  }),
  SIGNING_KEY_RETRY_MAX_MS: integer(500, 30_000).default(5000).register(described, {
    doc: 'while no key is held, background retries: 0.5 s doubling to this, jittered',
  }),
  SIGNING_KEY_REFRESH_INTERVAL_MS: integer(0, 604_800_000).default(3_600_000).register(described, {
    doc: 'background refetch of the key, so a rotation is noticed before a delivery fails (0: off)',
  }),
  // Required unless ALLOW_NO_WEBHOOK_SECRET, a rule across both: secretProblems() below.
  WEBHOOK_SECRETS: z.string().optional().register(described, {
    doc: 'comma-separated accepted `Authorisation` values (several during a rotation). Unset or blank: start-up refused (exit 2)',
    secret: true,
    defaultText: '**required**',
    example: 'Basic Rjc0MjYxOk5vdC1hLXJlYWwtc2VjcmV0',
    section: 'Shared secret',
    sectionNote:
      "The subscription's security token, which the platform echoes verbatim in `Authorisation` on every callback (e.g. `Basic Rjc0...`). A subscription made without a token sends none: then set ALLOW_NO_WEBHOOK_SECRET=true instead (the signature is still required).",
  }),
  ALLOW_NO_WEBHOOK_SECRET: flag.default(false).register(described, {
    doc: '`true`: run without a shared secret (a subscription made without a token), signature only; logged as a warning. Refused together with `WEBHOOK_SECRETS`',
  }),
  BODY_LIMIT_BYTES: integer(1024, 64 * MIB)
    .default(4 * MIB)
    .register(described, {
      doc: 'largest body (bytes, after gzip/deflate/br decoding)',
      section: 'Requests: limits, timeouts, the balancer',
      sectionNote:
        "Behind a load balancer, set TRUST_PROXY so logs record the sender's address from X-Forwarded-For.",
    }),
  BODY_MEMORY_BUDGET_BYTES: integer(1024, 64 * 1024 * MIB)
    .default(64 * MIB)
    .register(described, {
      doc: 'all bodies held at once by the instance (bytes, after decoding); beyond it a quick 503. Must be ≥ `BODY_LIMIT_BYTES`',
    }),
  MAX_UNVERIFIED_BODIES: integer(1, 100_000).default(16).register(described, {
    doc: 'bodies read at once before their signature is checked, with or without `WEBHOOK_SECRETS`; past 1 s the one reading longest gives its slot to a newcomer (503 + `Retry-After`), otherwise the newcomer reads on probation (4 places per slot, ≤ 64 KiB, within 1 s) or gets 503',
  }),
  MAX_IN_FLIGHT_DELIVERIES: integer(1, 100_000).default(256).register(described, {
    doc: 'deliveries processed at once, from the signature on (the body already in); beyond it a quick 503 with `Retry-After`',
  }),
  REQUEST_TIMEOUT_MS: integer(1000, 3_600_000).default(30_000).register(described, {
    doc: 'a whole request (headers and body) must arrive within this (408 / connection cut)',
  }),
  HEADERS_TIMEOUT_MS: integer(1000, 3_600_000).default(10_000).register(described, {
    doc: 'headers must arrive within this; must be ≤ `REQUEST_TIMEOUT_MS`',
  }),
  KEEP_ALIVE_TIMEOUT_MS: integer(1000, 3_600_000).default(65_000).register(described, {
    doc: 'idle keep-alive; longer than a typical balancer idle timeout (60 s) so the balancer closes first',
  }),
  SHUTDOWN_TIMEOUT_MS: integer(1000, 600_000).default(15_000).register(described, {
    doc: 'on SIGTERM/SIGINT, exit anyway after this if in-flight deliveries have not finished',
  }),
  SHUTDOWN_DRAIN_DELAY_MS: integer(0, 600_000).default(0).register(described, {
    doc: 'keep accepting this long after readiness fails (for balancers that do not retry, e.g. an ALB)',
  }),
  TRUST_PROXY: trustProxy.default(false).register(described, {
    doc: 'Express `trust proxy`: `true`, hop count, or balancer addresses (`loopback, 10.0.0.0/8`); checked at start-up with proxy-addr, as Express reads it',
  }),
  METRICS_PORT: z
    .union([z.literal('off'), integer(0, 65_535)])
    .default(9464)
    .register(described, {
      doc: 'port of the separate `/metrics` listener, never `PORT`; `off`: no metrics endpoint',
      section: 'Metrics',
    }),
  METRICS_HOST: listenHost.default('127.0.0.1').register(described, {
    doc: 'interface of the metrics listener; `0.0.0.0` for a Prometheus on another host (keep the port private)',
  }),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .register(described, { doc: 'pino level (`silent` to `trace`)', section: 'Logs' }),
  LOG_BUFFER_BYTES: integer(16 * 1024, 256 * MIB)
    .default(4 * MIB)
    .register(described, {
      doc: 'log bytes held while stdout is not keeping up; beyond it lines are dropped and counted',
    }),
  CAPTURE_DIR: optionalText().register(described, {
    doc: 'also write each authenticated delivery here as a fixture file (mode 0600, never the secret)',
    example: '.data/captured',
    section: 'Capture (docs/captured-fixtures.md)',
  }),
  FEED_TOKEN: z
    .string()
    .trim()
    .min(24, 'must be at least 24 characters')
    .optional()
    .register(described, {
      doc: 'enables `GET /feed` (pull) on its own listener; `Authorization: Bearer <token>`, at least 24 characters',
      secret: true,
      section: 'The feed (docs/feed.md): every stored event handed on, at least once',
      sectionNote:
        'A FEED_HTTP_SECRET: `echo whsec_$(openssl rand -base64 32)`. Retries of a push: FEED_RETRY_BASE_MS doubling up to FEED_RETRY_MAX_MS; after FEED_MAX_AGE_MS the event is dead-lettered (`npm run feed -- dead-letters`).',
    }),
  FEED_PORT: integer(0, 65_535)
    .default(3002)
    .register(described, { doc: 'port of the `GET /feed` listener' }),
  FEED_HOST: listenHost.default('127.0.0.1').register(described, {
    doc: 'interface of the `GET /feed` listener (loopback unless you open it)',
  }),
  FEED_PAGE_MAX_BYTES: integer(64 * 1024, 64 * MIB)
    .default(8 * MIB)
    .register(described, {
      doc: 'a `GET /feed` page stops before this size (at least one event)',
    }),
  FEED_ASSIGN_INTERVAL_MS: integer(10, 60_000).default(100).register(described, {
    doc: 'how often each instance assigns feed positions (one instance at a time)',
  }),
  FEED_DATABASE_POOL_MAX: integer(1, 50).default(2).register(described, {
    doc: "the feed's own connections per instance (assigner, relay, `GET /feed`)",
  }),
  FEED_HTTP_URL: httpUrl.optional().register(described, {
    doc: 'push every event here (the relay), signed per Standard Webhooks. https, or plain http to 127.0.0.1/localhost/[::1]; never a user or password in it',
    example: 'https://ledger.internal/monoova-events',
  }),
  FEED_HTTP_ALLOW_PLAIN_HTTP: flag.default(false).register(described, {
    doc: '`true`: allow plain http to another host (payer details unencrypted: a private network only)',
  }),
  FEED_HTTP_SECRET: z.string().optional().register(described, {
    doc: 'required with the URL: `whsec_<base64 of 24-64 bytes>`; comma-separated to sign with several (rotation)',
    secret: true,
    example: 'whsec_...',
  }),
  FEED_HTTP_TIMEOUT_MS: integer(100, 120_000).default(10_000).register(described, {
    doc: 'timeout of each POST (a timeout is a failure, retried)',
  }),
  FEED_HTTP_CONCURRENCY: integer(1, 1000).default(8).register(described, {
    doc: 'POSTs in flight per instance (different business keys; one key is one at a time)',
  }),
  FEED_RETRY_BASE_MS: integer(10, 3_600_000).default(1000).register(described, {
    doc: 'first retry wait, doubling per attempt, jittered (half to all of each step)',
  }),
  FEED_RETRY_MAX_MS: integer(10, 86_400_000)
    .default(300_000)
    .register(described, { doc: 'longest retry wait' }),
  FEED_MAX_AGE_MS: integer(1000, 2_592_000_000).default(259_200_000).register(described, {
    doc: 'retry for this long after the first attempt (3 days), then dead-letter (kept, counted)',
  }),
});

/** The variables as parsed: defaults applied, types coerced. */
type Env = z.output<typeof envSchema>;
export type VariableName = keyof Env;

/** A variable's default as the declaration gives it (undefined: none). */
export function configDefault<K extends VariableName>(name: K): Env[K] {
  return envSchema.shape[name].parse(undefined) as Env[K];
}

export interface ConfigVariable extends VariableDoc {
  readonly name: VariableName;
  /** Undefined when the variable has no default. */
  readonly default: unknown;
}

/** Every variable in declaration order, with its documentation (tools/docs/ writes them out). */
export function configVariables(): ConfigVariable[] {
  const names = Object.keys(envSchema.shape) as VariableName[];
  return names.map((name) => {
    const schema = envSchema.shape[name];
    const doc = described.get(schema);
    if (!doc) throw new Error(`${name}: no description in src/lib/config.ts`);
    // One schema object under two names would carry the last one's description for both.
    const twin = names.find((other) => other !== name && envSchema.shape[other] === schema);
    if (twin) throw new Error(`${name}, ${twin}: one schema object; give each its own`);
    return { ...doc, name, default: configDefault(name) };
  });
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

export interface LoadOptions {
  /**
   * The receiver (default) must be told about the shared secret: a secret, or running without
   * one explicitly. Tools that only reach the database (migrate, export) need not.
   */
  receivesDeliveries?: boolean;
  /** Reads a `*_FILE` variable's file (default: from disk). */
  readFile?: (path: string) => string;
}

/**
 * Secrets a container platform mounts as files (Docker and Kubernetes secrets): `NAME_FILE`
 * names a file whose content (one trailing newline dropped) is NAME's value.
 */
export const SECRET_FILE_VARIABLES: readonly VariableName[] = (
  Object.keys(envSchema.shape) as VariableName[]
).filter((name) => described.get(envSchema.shape[name])?.secret);

const SECRET_FILE_MAX_BYTES = 64 * 1024;

function readSecretFiles(
  env: Record<string, string | undefined>,
  readFile: (path: string) => string,
): { env: Record<string, string | undefined>; problems: string[] } {
  const resolved = { ...env };
  const problems: string[] = [];
  for (const name of SECRET_FILE_VARIABLES) {
    const file = env[`${name}_FILE`]?.trim();
    if (!file) continue;
    if (env[name] !== undefined && env[name]?.trim() !== '') {
      problems.push(`${name}_FILE: ${name} is set too; keep only one of them`);
      continue;
    }
    try {
      const text = readFile(file);
      if (Buffer.byteLength(text) > SECRET_FILE_MAX_BYTES) {
        problems.push(`${name}_FILE: ${file} is larger than 64 KiB`);
        continue;
      }
      resolved[name] = text.replace(/\r?\n$/, '');
    } catch (error) {
      // The reason (not found, no permission), never the content.
      const code = (error as { code?: unknown }).code;
      problems.push(
        `${name}_FILE: cannot read ${file}${typeof code === 'string' ? ` (${code})` : ''}`,
      );
    }
  }
  return { env: resolved, problems };
}

/**
 * What the code reads: the variables grouped and derived. Its type is inferred from the mapping
 * at the end of `loadConfig`, so a field is written once, there.
 */
export type Config = ReturnType<typeof loadConfig>;
export type FeedConfig = Config['feed'];

export function loadConfig(rawEnv: Record<string, string | undefined>, options: LoadOptions = {}) {
  const files = readSecretFiles(rawEnv, options.readFile ?? ((p) => readFileSync(p, 'utf8')));
  const env = files.env;
  const parsed = envSchema.safeParse(withoutBlanks(env));
  const problems = parsed.success
    ? [...files.problems]
    : [
        ...files.problems,
        ...parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
      ];
  if (options.receivesDeliveries ?? true) {
    problems.push(...secretProblems(env, parsed.data?.ALLOW_NO_WEBHOOK_SECRET ?? false));
  }
  if (parsed.data?.METRICS_PORT === parsed.data?.PORT && parsed.data?.PORT) {
    problems.push('METRICS_PORT: must differ from PORT (metrics never go on the public listener)');
  }
  if (parsed.success) {
    problems.push(...providerWorldProblems(parsed.data));
    problems.push(...signingKeyWorldProblems(parsed.data, withoutBlanks(env)));
  }
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const e = parsed.data;
  const baseUrl = e.PROVIDER_BASE_URL ?? PROVIDER_BASE_URLS[e.PROVIDER_ENV];
  const keyUrl = e.SIGNING_KEY_URL ?? `${baseUrl}${PUBLIC_KEY_PATH}`;
  // PROVIDER_ENV=local chose this machine's sandbox: its key over plain http to loopback is the
  // operator's choice already made, not one to repeat in SIGNING_KEY_ALLOW_HTTP.
  const localKey = e.PROVIDER_ENV === 'local' && worldOf(keyUrl) === 'local';
  const keyOverHttp = e.SIGNING_KEY_ALLOW_HTTP || localKey;
  if (!e.SIGNING_KEY && keyUrl.startsWith('http:') && !keyOverHttp) {
    throw new ConfigError([
      'SIGNING_KEY_URL: must be https (set SIGNING_KEY_ALLOW_HTTP=true only for local testing)',
    ]);
  }
  const inconsistent = [
    // Node swaps the two timeouts when the headers one is larger, so a body could take that long.
    e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS &&
      `HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS (${e.REQUEST_TIMEOUT_MS})`,
    e.BODY_MEMORY_BUDGET_BYTES < e.BODY_LIMIT_BYTES &&
      `BODY_MEMORY_BUDGET_BYTES: must be at least BODY_LIMIT_BYTES (${e.BODY_LIMIT_BYTES})`,
  ].filter((problem): problem is string => typeof problem === 'string');
  if (inconsistent.length > 0) throw new ConfigError(inconsistent);

  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    /** Unset means: start the embedded Postgres. */
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    /** Off where a migration job runs first: the receiver then only checks the schema is current. */
    migrateOnStart: e.MIGRATE_ON_START,
    databaseConnectionTimeoutMs: e.DATABASE_CONNECTION_TIMEOUT_MS,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    /** Group commit: statements writing deliveries at once, and the most deliveries in one. */
    writeConcurrency: e.WRITE_CONCURRENCY,
    writeBatchMax: e.WRITE_BATCH_MAX,
    embeddedPostgres: Object.freeze({
      dir: e.EMBEDDED_POSTGRES_DIR,
      port: e.EMBEDDED_POSTGRES_PORT,
    }),
    providerEnv: e.PROVIDER_ENV,
    /** The platform's API, for the provider client, recovery and refunds (never for receiving). */
    provider: Object.freeze({
      baseUrl,
      authUrl: e.PROVIDER_AUTH_URL ?? PROVIDER_AUTH_URLS[e.PROVIDER_ENV],
      /** Secret. Unset: the client cannot call the platform and scheduled recovery is off. */
      apiKey: e.PROVIDER_API_KEY,
      mAccount: e.PROVIDER_MACCOUNT,
      timeoutMs: e.PROVIDER_TIMEOUT_MS,
      dialect: e.PROVIDER_DIALECT,
    }),
    /** Scheduled recovery: least time between runs; 0 turns it off. Off without credentials. */
    recoveryIntervalMs: e.PROVIDER_API_KEY ? e.RECOVERY_INTERVAL_MS : 0,
    /** How long raw requests, sent feed events and recovery records are kept; 0: for ever. */
    retention: Object.freeze({
      rawDays: e.RETENTION_RAW_DAYS,
      feedDays: e.RETENTION_FEED_DAYS,
      recoveryDays: e.RETENTION_RECOVERY_DAYS,
      intervalMs: e.RETENTION_INTERVAL_MS,
      batchSize: e.RETENTION_BATCH_SIZE,
      batchPauseMs: e.RETENTION_BATCH_PAUSE_MS,
      runMaxMs: e.RETENTION_RUN_MAX_MS,
    }),
    signingKey: Object.freeze(
      e.SIGNING_KEY
        ? { kind: 'configured' as const, text: e.SIGNING_KEY }
        : {
            kind: 'fetched' as const,
            url: keyUrl,
            allowHttp: keyOverHttp,
            fetchTimeoutMs: e.SIGNING_KEY_FETCH_TIMEOUT_MS,
            refreshCooldownMs: e.SIGNING_KEY_REFRESH_COOLDOWN_MS,
            retryIntervalMs: e.SIGNING_KEY_RETRY_INTERVAL_MS,
            retryBackoffMaxMs: e.SIGNING_KEY_RETRY_MAX_MS,
            refreshIntervalMs: e.SIGNING_KEY_REFRESH_INTERVAL_MS,
          },
    ),
    /** Empty only when `allowNoWebhookSecret`: then the shared-secret check is skipped. */
    webhookSecrets: Object.freeze(parseSecrets(e.WEBHOOK_SECRETS)),
    allowNoWebhookSecret: e.ALLOW_NO_WEBHOOK_SECRET,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    /** Express `trust proxy`: false, true, a hop count, or addresses/subnets of the balancers. */
    trustProxy: e.TRUST_PROXY,
    maxInFlightDeliveries: e.MAX_IN_FLIGHT_DELIVERIES,
    maxUnverifiedBodies: e.MAX_UNVERIFIED_BODIES,
    bodyMemoryBudgetBytes: e.BODY_MEMORY_BUDGET_BYTES,
    server: Object.freeze({
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
      headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
      shutdownDrainDelayMs: e.SHUTDOWN_DRAIN_DELAY_MS,
    }),
    /** /metrics is served on its own listener, never on the public one; undefined: not served. */
    metricsPort: e.METRICS_PORT === 'off' ? undefined : e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
    logBufferBytes: e.LOG_BUFFER_BYTES,
    captureDir: e.CAPTURE_DIR,
    logLevel: e.LOG_LEVEL,
    /** The feed (docs/feed.md): positions always; pull endpoint and push relay when configured. */
    feed: feedConfig(e),
  });
}

/**
 * The push relay's URL carries payer details to the merchant. Credentials in it would be logged
 * and stored with every failed POST (the consumer authenticates us by the Standard Webhooks
 * signature instead), and plain http to another machine would send payer details unencrypted,
 * unless the operator says the network is private. The URL itself is never echoed.
 */
function relayUrlProblems(text: string, allowPlainHttp: boolean): string[] {
  const url = new URL(text);
  const problems: string[] = [];
  if (url.username !== '' || url.password !== '') {
    problems.push(
      'FEED_HTTP_URL: must not carry a user or password (they would be written to logs and feed_events.last_error); the consumer verifies each POST by its signature (FEED_HTTP_SECRET)',
    );
  }
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol === 'http:' && !loopback && !allowPlainHttp) {
    problems.push(
      'FEED_HTTP_URL: plain http only to 127.0.0.1, localhost or [::1] (payer details would travel unencrypted); use https, or set FEED_HTTP_ALLOW_PLAIN_HTTP=true on a private network',
    );
  }
  return problems;
}

function feedConfig(e: Env) {
  const secrets = parseSecrets(e.FEED_HTTP_SECRET).map(parseWebhookSecret);
  const problems = secrets
    .filter((s) => typeof s === 'string')
    .map((s) => `FEED_HTTP_SECRET: ${s}`);
  if (e.FEED_HTTP_URL && secrets.length === 0)
    problems.push('FEED_HTTP_SECRET: required with FEED_HTTP_URL');
  if (e.FEED_HTTP_URL)
    problems.push(...relayUrlProblems(e.FEED_HTTP_URL, e.FEED_HTTP_ALLOW_PLAIN_HTTP));
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    /** GET /feed is served (on its own listener) only when a token is set. */
    token: e.FEED_TOKEN,
    port: e.FEED_PORT,
    host: e.FEED_HOST,
    pageMaxBytes: e.FEED_PAGE_MAX_BYTES,
    assignIntervalMs: e.FEED_ASSIGN_INTERVAL_MS,
    poolMax: e.FEED_DATABASE_POOL_MAX,
    /** The push relay, when FEED_HTTP_URL is set. */
    relay: e.FEED_HTTP_URL
      ? Object.freeze({
          url: e.FEED_HTTP_URL,
          /** Key bytes of each FEED_HTTP_SECRET (several during a rotation). */
          secrets: secrets.filter((s): s is Buffer => typeof s !== 'string'),
          timeoutMs: e.FEED_HTTP_TIMEOUT_MS,
          concurrency: e.FEED_HTTP_CONCURRENCY,
          retryBaseMs: e.FEED_RETRY_BASE_MS,
          retryMaxMs: Math.max(e.FEED_RETRY_MAX_MS, e.FEED_RETRY_BASE_MS),
          maxAgeMs: e.FEED_MAX_AGE_MS,
        })
      : undefined,
  });
}

/** `FOO=` in an env file means "not set", so the default applies rather than a parse error. */
function withoutBlanks(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => !!entry[1]?.trim()),
  );
}

/** "true"/"false", a number of hops, or Express's list form ("loopback, 10.0.0.0/8"). */
function parseTrustProxy(raw: string): boolean | number | string {
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

/**
 * A blank WEBHOOK_SECRETS (an unfilled env file, a Compose default) must not quietly turn the
 * secret check off: running without a secret is said explicitly, with ALLOW_NO_WEBHOOK_SECRET.
 */
function secretProblems(env: Record<string, string | undefined>, allowNone: boolean): string[] {
  const raw = env.WEBHOOK_SECRETS;
  const secrets = parseSecrets(raw);
  if (allowNone) {
    return secrets.length > 0
      ? ['ALLOW_NO_WEBHOOK_SECRET: is true but WEBHOOK_SECRETS is set; keep only one of them']
      : [];
  }
  if (secrets.length > 0) return [];
  const what = raw === undefined ? 'not set' : 'blank';
  return [
    `WEBHOOK_SECRETS: ${what}; set it to the subscription's security token (the exact Authorisation value the platform sends), or set ALLOW_NO_WEBHOOK_SECRET=true to accept deliveries checked by signature only`,
  ];
}

/** Comma-separated, several at once during a rotation; blanks around commas are not part of a secret. */
function parseSecrets(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter((secret) => secret.length > 0);
}
