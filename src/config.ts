import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';
import { z } from 'zod';
import { PUBLIC_KEY_PATH } from './common/platform-key.ts';
import { parseWebhookSecret } from './feed/signer.ts';

/**
 * Configuration is one pure function over the environment. Every bad key is reported at once,
 * by name, so an operator fixes a deployment in one go instead of one restart per typo.
 */

/** `local`: this project's offline sandbox (`npm run sandbox`) on its default address. */
export const LOCAL_SANDBOX_URL = 'http://127.0.0.1:8787';

export const PROVIDER_BASE_URLS = {
  local: LOCAL_SANDBOX_URL,
  sandbox: 'https://api.m-pay.com.au',
  production: 'https://api.mpay.com.au',
} as const;

/** Where the platform issues bearer tokens (a different host from the payments API). */
export const PROVIDER_AUTH_URLS = {
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

const MIB = 1024 * 1024;

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const optionalText = z.string().trim().optional();

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
 * Which description of the platform the provider client speaks (src/provider/dialect.ts):
 * `auto` finds out; `interface` or `public` pins one.
 */
export const DIALECT_SETTINGS = ['auto', 'interface', 'public'] as const;
export type DialectSetting = (typeof DIALECT_SETTINGS)[number];

/** Credentials travel to these: https, or plain http to this machine only (a local sandbox). */
const providerUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
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

const envSchema = z.object({
  PORT: integer(0, 65_535).default(3000),
  HOST: listenHost.default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .trim()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATABASE_POOL_MAX: integer(1, 1000).default(10),
  MIGRATE_ON_START: flag.default(true),
  DATABASE_CONNECTION_TIMEOUT_MS: integer(100, 120_000).default(5000),
  DATABASE_STATEMENT_TIMEOUT_MS: integer(100, 600_000).default(10_000),
  WRITE_CONCURRENCY: integer(1, 1000).default(1),
  WRITE_BATCH_MAX: integer(1, 10_000).default(100),
  EMBEDDED_POSTGRES_DIR: z.string().trim().min(1).default('.data/postgres'),
  EMBEDDED_POSTGRES_PORT: integer(1, 65_535).default(54329),
  PROVIDER_ENV: z.enum(['local', 'sandbox', 'production']).default('production'),
  PROVIDER_BASE_URL: providerUrl.optional(),
  PROVIDER_AUTH_URL: providerUrl.optional(),
  PROVIDER_API_KEY: optionalText,
  PROVIDER_MACCOUNT: optionalText,
  PROVIDER_TIMEOUT_MS: integer(100, 120_000).default(15_000),
  PROVIDER_DIALECT: z.enum(DIALECT_SETTINGS).default('auto'),
  RECOVERY_INTERVAL_MS: integer(0, 86_400_000).default(300_000),
  // Retention (docs/retention.md): days kept, 0 keeps for ever; the prune's schedule and budget.
  RETENTION_RAW_DAYS: integer(0, 36_500).default(90),
  RETENTION_FEED_DAYS: integer(0, 36_500).default(30),
  RETENTION_RECOVERY_DAYS: integer(0, 36_500).default(90),
  RETENTION_INTERVAL_MS: integer(0, 604_800_000).default(3_600_000),
  RETENTION_BATCH_SIZE: integer(1, 10_000).default(1000),
  RETENTION_BATCH_PAUSE_MS: integer(0, 60_000).default(100),
  RETENTION_RUN_MAX_MS: integer(1000, 86_400_000).default(300_000),
  SIGNING_KEY: optionalText,
  SIGNING_KEY_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  SIGNING_KEY_ALLOW_HTTP: flag.default(false),
  // Both bounded so a refetch after a failed signature always completes well inside the 30 s
  // before the platform retries a delivery signed with a rotated key.
  SIGNING_KEY_FETCH_TIMEOUT_MS: integer(100, 10_000).default(5000),
  SIGNING_KEY_REFRESH_COOLDOWN_MS: integer(1000, 10_000).default(5000),
  SIGNING_KEY_RETRY_INTERVAL_MS: integer(0, 3_600_000).default(1000),
  SIGNING_KEY_RETRY_MAX_MS: integer(500, 30_000).default(5000),
  SIGNING_KEY_REFRESH_INTERVAL_MS: integer(0, 604_800_000).default(3_600_000),
  WEBHOOK_SECRETS: z.string().optional(),
  ALLOW_NO_WEBHOOK_SECRET: flag.default(false),
  BODY_LIMIT_BYTES: integer(1024, 64 * MIB).default(4 * MIB),
  TRUST_PROXY: trustProxy.default(false),
  MAX_IN_FLIGHT_DELIVERIES: integer(1, 100_000).default(256),
  MAX_UNVERIFIED_BODIES: integer(1, 100_000).default(16),
  BODY_MEMORY_BUDGET_BYTES: integer(1024, 64 * 1024 * MIB).default(64 * MIB),
  KEEP_ALIVE_TIMEOUT_MS: integer(1000, 3_600_000).default(65_000),
  HEADERS_TIMEOUT_MS: integer(1000, 3_600_000).default(10_000),
  REQUEST_TIMEOUT_MS: integer(1000, 3_600_000).default(30_000),
  SHUTDOWN_TIMEOUT_MS: integer(1000, 600_000).default(15_000),
  SHUTDOWN_DRAIN_DELAY_MS: integer(0, 600_000).default(0),
  METRICS_PORT: z.union([z.literal('off'), integer(0, 65_535)]).default(9464),
  METRICS_HOST: listenHost.default('127.0.0.1'),
  LOG_BUFFER_BYTES: integer(16 * 1024, 256 * MIB).default(4 * MIB),
  CAPTURE_DIR: optionalText,
  FEED_TOKEN: z.string().trim().min(24, 'must be at least 24 characters').optional(),
  FEED_PORT: integer(0, 65_535).default(3002),
  FEED_HOST: listenHost.default('127.0.0.1'),
  FEED_PAGE_MAX_BYTES: integer(64 * 1024, 64 * MIB).default(8 * MIB),
  FEED_ASSIGN_INTERVAL_MS: integer(10, 60_000).default(100),
  FEED_DATABASE_POOL_MAX: integer(1, 50).default(2),
  FEED_HTTP_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  FEED_HTTP_ALLOW_PLAIN_HTTP: flag.default(false),
  FEED_HTTP_SECRET: z.string().optional(),
  FEED_HTTP_TIMEOUT_MS: integer(100, 120_000).default(10_000),
  FEED_HTTP_CONCURRENCY: integer(1, 1000).default(8),
  FEED_RETRY_BASE_MS: integer(10, 3_600_000).default(1000),
  FEED_RETRY_MAX_MS: integer(10, 86_400_000).default(300_000),
  FEED_MAX_AGE_MS: integer(1000, 2_592_000_000).default(259_200_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Unset means: start the embedded Postgres. */
  readonly databaseUrl: string | undefined;
  /**
   * MIGRATE_ON_START: bring the schema up to date at start (laptops, one instance). Off where a
   * migration job runs first under the owner role: the receiver then only checks it is current.
   */
  readonly migrateOnStart: boolean;
  readonly databasePoolMax: number;
  readonly databaseConnectionTimeoutMs: number;
  readonly databaseStatementTimeoutMs: number;
  /** Group commit: statements writing deliveries at once, and the most deliveries in one. */
  readonly writeConcurrency: number;
  readonly writeBatchMax: number;
  readonly embeddedPostgres: { readonly dir: string; readonly port: number };
  readonly providerEnv: 'local' | 'sandbox' | 'production';
  /** The platform's API, for the provider client, recovery and refunds (never for receiving). */
  readonly provider: {
    readonly baseUrl: string;
    readonly authUrl: string;
    /** Secret. Unset: the client cannot call the platform and scheduled recovery is off. */
    readonly apiKey: string | undefined;
    readonly mAccount: string | undefined;
    readonly timeoutMs: number;
    /** Which description of the platform to speak: `auto` finds out (docs/provider-client.md). */
    readonly dialect: DialectSetting;
  };
  /** Scheduled recovery: least time between runs; 0 turns it off. Off without credentials. */
  readonly recoveryIntervalMs: number;
  /** How long raw requests, sent feed events and recovery records are kept (docs/retention.md). */
  readonly retention: {
    /** Raw body, headers and jsonb payload of deliveries (and handled quarantine rows); 0: kept. */
    readonly rawDays: number;
    /** Feed events sent by the relay this long ago; 0: kept. */
    readonly feedDays: number;
    /** Recovery attempts, runs, unreadable report rows and progress; 0: kept. */
    readonly recoveryDays: number;
    /** The scheduled prune: least time between runs; 0 turns it off. */
    readonly intervalMs: number;
    /** Rows per batch (one short transaction each), the pause between batches, a run's budget. */
    readonly batchSize: number;
    readonly batchPauseMs: number;
    readonly runMaxMs: number;
  };
  readonly signingKey:
    | { readonly kind: 'configured'; readonly text: string }
    | {
        readonly kind: 'fetched';
        readonly url: string;
        readonly allowHttp: boolean;
        readonly fetchTimeoutMs: number;
        readonly refreshCooldownMs: number;
        readonly retryIntervalMs: number;
        readonly retryBackoffMaxMs: number;
        readonly refreshIntervalMs: number;
      };
  /** Empty only when `allowNoWebhookSecret`: then the shared-secret check is skipped. */
  readonly webhookSecrets: readonly string[];
  /** ALLOW_NO_WEBHOOK_SECRET: running without a shared secret was asked for explicitly. */
  readonly allowNoWebhookSecret: boolean;
  readonly bodyLimitBytes: number;
  /** Express `trust proxy`: false, true, a hop count, or addresses/subnets of the balancers. */
  readonly trustProxy: boolean | number | string;
  /** Deliveries being processed at once by this instance; beyond it, a quick 503. */
  readonly maxInFlightDeliveries: number;
  /** Without a shared secret: bodies read at once before their signature is checked. */
  readonly maxUnverifiedBodies: number;
  /** Bytes of all request bodies held at once (after inflation); beyond it, a quick 503. */
  readonly bodyMemoryBudgetBytes: number;
  readonly server: {
    readonly keepAliveTimeoutMs: number;
    readonly headersTimeoutMs: number;
    readonly requestTimeoutMs: number;
    readonly shutdownTimeoutMs: number;
    /** After readiness fails, keep serving this long before closing the listener. */
    readonly shutdownDrainDelayMs: number;
  };
  /** /metrics is served on its own listener, never on the public one; undefined: not served. */
  readonly metricsPort: number | undefined;
  readonly metricsHost: string;
  /** Log bytes held while stdout is not keeping up; beyond it lines are dropped and counted. */
  readonly logBufferBytes: number;
  /** Write each authenticated delivery here in the captured-fixture format. */
  readonly captureDir: string | undefined;
  readonly logLevel: string;
  /** The feed (docs/feed.md): positions always; pull endpoint and push relay when configured. */
  readonly feed: FeedConfig;
}

export interface FeedConfig {
  /** GET /feed is served (on its own listener) only when a token is set. */
  readonly token: string | undefined;
  readonly port: number;
  readonly host: string;
  readonly pageMaxBytes: number;
  readonly assignIntervalMs: number;
  readonly poolMax: number;
  /** The push relay, when FEED_HTTP_URL is set. */
  readonly relay:
    | {
        readonly url: string;
        /** Key bytes of each FEED_HTTP_SECRET (several during a rotation). */
        readonly secrets: readonly Buffer[];
        readonly timeoutMs: number;
        readonly concurrency: number;
        readonly retryBaseMs: number;
        readonly retryMaxMs: number;
        readonly maxAgeMs: number;
      }
    | undefined;
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
export const SECRET_FILE_VARIABLES = [
  'WEBHOOK_SECRETS',
  'DATABASE_URL',
  'SIGNING_KEY',
  'PROVIDER_API_KEY',
  'PROVIDER_MACCOUNT',
  'FEED_TOKEN',
  'FEED_HTTP_SECRET',
] as const;

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

export function loadConfig(
  rawEnv: Record<string, string | undefined>,
  options: LoadOptions = {},
): Config {
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
  if (parsed.success) problems.push(...providerWorldProblems(parsed.data));
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
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    migrateOnStart: e.MIGRATE_ON_START,
    databaseConnectionTimeoutMs: e.DATABASE_CONNECTION_TIMEOUT_MS,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    writeConcurrency: e.WRITE_CONCURRENCY,
    writeBatchMax: e.WRITE_BATCH_MAX,
    embeddedPostgres: Object.freeze({
      dir: e.EMBEDDED_POSTGRES_DIR,
      port: e.EMBEDDED_POSTGRES_PORT,
    }),
    providerEnv: e.PROVIDER_ENV,
    provider: Object.freeze({
      baseUrl,
      authUrl: e.PROVIDER_AUTH_URL ?? PROVIDER_AUTH_URLS[e.PROVIDER_ENV],
      apiKey: e.PROVIDER_API_KEY,
      mAccount: e.PROVIDER_MACCOUNT,
      timeoutMs: e.PROVIDER_TIMEOUT_MS,
      dialect: e.PROVIDER_DIALECT,
    }),
    recoveryIntervalMs: e.PROVIDER_API_KEY ? e.RECOVERY_INTERVAL_MS : 0,
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
    webhookSecrets: Object.freeze(parseSecrets(e.WEBHOOK_SECRETS)),
    allowNoWebhookSecret: e.ALLOW_NO_WEBHOOK_SECRET,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
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
    metricsPort: e.METRICS_PORT === 'off' ? undefined : e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
    logBufferBytes: e.LOG_BUFFER_BYTES,
    captureDir: e.CAPTURE_DIR,
    logLevel: e.LOG_LEVEL,
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

function feedConfig(e: z.infer<typeof envSchema>): FeedConfig {
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
    token: e.FEED_TOKEN,
    port: e.FEED_PORT,
    host: e.FEED_HOST,
    pageMaxBytes: e.FEED_PAGE_MAX_BYTES,
    assignIntervalMs: e.FEED_ASSIGN_INTERVAL_MS,
    poolMax: e.FEED_DATABASE_POOL_MAX,
    relay: e.FEED_HTTP_URL
      ? Object.freeze({
          url: e.FEED_HTTP_URL,
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
