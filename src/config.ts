import { z } from 'zod';
import { parseWebhookSecret } from './feed/signer.ts';

/**
 * Configuration is one pure function over the environment. Every bad key is reported at once,
 * by name, so an operator fixes a deployment in one go instead of one restart per typo.
 */

export const PROVIDER_BASE_URLS = {
  sandbox: 'https://api.m-pay.com.au',
  production: 'https://api.mpay.com.au',
} as const;

export const PUBLIC_KEY_PATH = '/public/v1/certificate/public-key';

const MIB = 1024 * 1024;

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const optionalText = z.string().trim().optional();

const envSchema = z.object({
  PORT: integer(0, 65_535).default(3000),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .trim()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATABASE_POOL_MAX: integer(1, 1000).default(10),
  DATABASE_CONNECTION_TIMEOUT_MS: integer(100, 120_000).default(5000),
  DATABASE_STATEMENT_TIMEOUT_MS: integer(100, 600_000).default(10_000),
  WRITE_CONCURRENCY: integer(1, 1000).default(1),
  WRITE_BATCH_MAX: integer(1, 10_000).default(100),
  EMBEDDED_POSTGRES_DIR: z.string().trim().min(1).default('.data/postgres'),
  EMBEDDED_POSTGRES_PORT: integer(1, 65_535).default(54329),
  PROVIDER_ENV: z.enum(['sandbox', 'production']).default('production'),
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
  BODY_LIMIT_BYTES: integer(1024, 64 * MIB).default(4 * MIB),
  TRUST_PROXY: z.string().trim().default('false'),
  MAX_IN_FLIGHT_DELIVERIES: integer(1, 100_000).default(256),
  KEEP_ALIVE_TIMEOUT_MS: integer(1000, 3_600_000).default(65_000),
  HEADERS_TIMEOUT_MS: integer(1000, 3_600_000).default(66_000),
  REQUEST_TIMEOUT_MS: integer(1000, 3_600_000).default(30_000),
  SHUTDOWN_TIMEOUT_MS: integer(1000, 600_000).default(15_000),
  SHUTDOWN_DRAIN_DELAY_MS: integer(0, 600_000).default(0),
  METRICS_PORT: integer(0, 65_535).optional(),
  CAPTURE_DIR: optionalText,
  FEED_TOKEN: z.string().trim().min(24, 'must be at least 24 characters').optional(),
  FEED_PORT: integer(0, 65_535).default(3002),
  FEED_HOST: z.string().trim().min(1).default('127.0.0.1'),
  FEED_PAGE_MAX_BYTES: integer(64 * 1024, 64 * MIB).default(8 * MIB),
  FEED_ASSIGN_INTERVAL_MS: integer(10, 60_000).default(100),
  FEED_DATABASE_POOL_MAX: integer(1, 50).default(2),
  FEED_HTTP_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
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
  readonly databasePoolMax: number;
  readonly databaseConnectionTimeoutMs: number;
  readonly databaseStatementTimeoutMs: number;
  /** Group commit: statements writing deliveries at once, and the most deliveries in one. */
  readonly writeConcurrency: number;
  readonly writeBatchMax: number;
  readonly embeddedPostgres: { readonly dir: string; readonly port: number };
  readonly providerEnv: 'sandbox' | 'production';
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
  /** Empty means the shared-secret check is skipped. */
  readonly webhookSecrets: readonly string[];
  readonly bodyLimitBytes: number;
  /** Express `trust proxy`: false, true, a hop count, or addresses/subnets of the balancers. */
  readonly trustProxy: boolean | number | string;
  /** Deliveries being processed at once by this instance; beyond it, a quick 503. */
  readonly maxInFlightDeliveries: number;
  readonly server: {
    readonly keepAliveTimeoutMs: number;
    readonly headersTimeoutMs: number;
    readonly requestTimeoutMs: number;
    readonly shutdownTimeoutMs: number;
    /** After readiness fails, keep serving this long before closing the listener. */
    readonly shutdownDrainDelayMs: number;
  };
  /** Serve /metrics on this port only (not through the public listener); unset: on PORT. */
  readonly metricsPort: number | undefined;
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

export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = envSchema.safeParse(withoutBlanks(env));
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    );
  }
  const e = parsed.data;
  const keyUrl = e.SIGNING_KEY_URL ?? `${PROVIDER_BASE_URLS[e.PROVIDER_ENV]}${PUBLIC_KEY_PATH}`;
  if (!e.SIGNING_KEY && keyUrl.startsWith('http:') && !e.SIGNING_KEY_ALLOW_HTTP) {
    throw new ConfigError([
      'SIGNING_KEY_URL: must be https (set SIGNING_KEY_ALLOW_HTTP=true only for local testing)',
    ]);
  }

  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    databaseConnectionTimeoutMs: e.DATABASE_CONNECTION_TIMEOUT_MS,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    writeConcurrency: e.WRITE_CONCURRENCY,
    writeBatchMax: e.WRITE_BATCH_MAX,
    embeddedPostgres: Object.freeze({
      dir: e.EMBEDDED_POSTGRES_DIR,
      port: e.EMBEDDED_POSTGRES_PORT,
    }),
    providerEnv: e.PROVIDER_ENV,
    signingKey: Object.freeze(
      e.SIGNING_KEY
        ? { kind: 'configured' as const, text: e.SIGNING_KEY }
        : {
            kind: 'fetched' as const,
            url: keyUrl,
            allowHttp: e.SIGNING_KEY_ALLOW_HTTP,
            fetchTimeoutMs: e.SIGNING_KEY_FETCH_TIMEOUT_MS,
            refreshCooldownMs: e.SIGNING_KEY_REFRESH_COOLDOWN_MS,
            retryIntervalMs: e.SIGNING_KEY_RETRY_INTERVAL_MS,
            retryBackoffMaxMs: e.SIGNING_KEY_RETRY_MAX_MS,
            refreshIntervalMs: e.SIGNING_KEY_REFRESH_INTERVAL_MS,
          },
    ),
    webhookSecrets: Object.freeze(parseSecrets(e.WEBHOOK_SECRETS)),
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    maxInFlightDeliveries: e.MAX_IN_FLIGHT_DELIVERIES,
    server: Object.freeze({
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
      headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
      shutdownDrainDelayMs: e.SHUTDOWN_DRAIN_DELAY_MS,
    }),
    metricsPort: e.METRICS_PORT,
    captureDir: e.CAPTURE_DIR,
    logLevel: e.LOG_LEVEL,
    feed: feedConfig(e),
  });
}

function feedConfig(e: z.infer<typeof envSchema>): FeedConfig {
  const secrets = parseSecrets(e.FEED_HTTP_SECRET).map(parseWebhookSecret);
  const problems = secrets
    .filter((s) => typeof s === 'string')
    .map((s) => `FEED_HTTP_SECRET: ${s}`);
  if (e.FEED_HTTP_URL && secrets.length === 0)
    problems.push('FEED_HTTP_SECRET: required with FEED_HTTP_URL');
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

/** Comma-separated, several at once during a rotation; blanks around commas are not part of a secret. */
function parseSecrets(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter((secret) => secret.length > 0);
}
