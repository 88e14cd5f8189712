import proxyaddr from 'proxy-addr';
import { z } from 'zod';
import { integer, listenHost, MIB } from '../../lib/config/kinds.ts';
import { defineSection } from '../../lib/config/section.ts';
import { variable } from '../../lib/config/variable.ts';

/** The public listener: where the platform's deliveries arrive. */
export const listenerSettings = defineSection({
  variables: {
    port: variable('PORT', integer(0, 65_535).default(3000), { doc: 'HTTP port', section: 'HTTP' }),
    host: variable('HOST', listenHost.default('0.0.0.0'), {
      doc: 'interface to listen on (an IP address or host name)',
    }),
  },
});

/** "true"/"false", a number of hops, or Express's list form ("loopback, 10.0.0.0/8"). */
function parseTrustProxy(raw: string): boolean | number | string {
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

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

/** What a request may hold and how long it may take; the instance's budgets; the balancer. */
export const requestSettings = defineSection({
  variables: {
    bodyLimitBytes: variable('BODY_LIMIT_BYTES', integer(1024, 64 * MIB).default(4 * MIB), {
      doc: 'largest body (bytes, after gzip/deflate/br decoding)',
      section: 'Requests: limits, timeouts, the balancer',
      sectionNote:
        "Behind a load balancer, set TRUST_PROXY so logs record the sender's address from X-Forwarded-For.",
    }),
    bodyMemoryBudgetBytes: variable(
      'BODY_MEMORY_BUDGET_BYTES',
      integer(1024, 64 * 1024 * MIB).default(64 * MIB),
      {
        doc: 'all bodies held at once by the instance (bytes, after decoding); beyond it a quick 503. Must be ≥ `BODY_LIMIT_BYTES`',
      },
    ),
    maxUnverifiedBodies: variable('MAX_UNVERIFIED_BODIES', integer(1, 100_000).default(16), {
      doc: 'bodies read at once before their signature is checked, with or without `WEBHOOK_SECRETS`; past 1 s the one reading longest gives its slot to a newcomer (503 + `Retry-After`), otherwise the newcomer reads on probation (4 places per slot, ≤ 64 KiB, within 1 s) or gets 503',
    }),
    maxInFlightDeliveries: variable('MAX_IN_FLIGHT_DELIVERIES', integer(1, 100_000).default(256), {
      doc: 'deliveries processed at once, from the signature on (the body already in); beyond it a quick 503 with `Retry-After`',
    }),
    requestTimeoutMs: variable('REQUEST_TIMEOUT_MS', integer(1000, 3_600_000).default(30_000), {
      doc: 'a whole request (headers and body) must arrive within this (408 / connection cut)',
    }),
    headersTimeoutMs: variable('HEADERS_TIMEOUT_MS', integer(1000, 3_600_000).default(10_000), {
      doc: 'headers must arrive within this; must be ≤ `REQUEST_TIMEOUT_MS`',
    }),
    keepAliveTimeoutMs: variable(
      'KEEP_ALIVE_TIMEOUT_MS',
      integer(1000, 3_600_000).default(65_000),
      {
        doc: 'idle keep-alive; longer than a typical balancer idle timeout (60 s) so the balancer closes first',
      },
    ),
    shutdownTimeoutMs: variable('SHUTDOWN_TIMEOUT_MS', integer(1000, 600_000).default(15_000), {
      doc: 'on SIGTERM/SIGINT, exit anyway after this if in-flight deliveries have not finished',
    }),
    shutdownDrainDelayMs: variable('SHUTDOWN_DRAIN_DELAY_MS', integer(0, 600_000).default(0), {
      doc: 'keep accepting this long after readiness fails (for balancers that do not retry, e.g. an ALB)',
    }),
    /** Express `trust proxy`: false, true, a hop count, or addresses/subnets of the balancers. */
    trustProxy: variable('TRUST_PROXY', trustProxy.default(false), {
      doc: 'Express `trust proxy`: `true`, hop count, or balancer addresses (`loopback, 10.0.0.0/8`); checked at start-up with proxy-addr, as Express reads it',
    }),
  },
  read(e, { problem }) {
    // The timeouts go together under `server`: every listener takes them as one.
    const { keepAliveTimeoutMs, headersTimeoutMs, requestTimeoutMs, ...rest } = e;
    const { shutdownTimeoutMs, shutdownDrainDelayMs, ...limits } = rest;
    // Node swaps the two timeouts when the headers one is larger, so a body could take that long.
    if (headersTimeoutMs > requestTimeoutMs) {
      problem(`HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
    }
    if (e.bodyMemoryBudgetBytes < e.bodyLimitBytes) {
      problem(`BODY_MEMORY_BUDGET_BYTES: must be at least BODY_LIMIT_BYTES (${e.bodyLimitBytes})`);
    }
    const timeouts = { keepAliveTimeoutMs, headersTimeoutMs, requestTimeoutMs };
    return { ...limits, server: { ...timeouts, shutdownTimeoutMs, shutdownDrainDelayMs } };
  },
});

/** /metrics, on a listener of its own: never on the public one. */
export const metricsSettings = defineSection({
  variables: {
    metricsPort: variable(
      'METRICS_PORT',
      z.union([z.literal('off'), integer(0, 65_535)]).default(9464),
      {
        doc: 'port of the separate `/metrics` listener, never `PORT`; `off`: no metrics endpoint',
        section: 'Metrics',
      },
    ),
    metricsHost: variable('METRICS_HOST', listenHost.default('127.0.0.1'), {
      doc: 'interface of the metrics listener; `0.0.0.0` for a Prometheus on another host (keep the port private)',
    }),
  },
  uses: { listener: listenerSettings },
  read({ metricsPort, metricsHost }, { uses, problem }) {
    if (metricsPort === uses.listener.port && uses.listener.port) {
      problem('METRICS_PORT: must differ from PORT (metrics never go on the public listener)');
    }
    /** Undefined: not served. */
    return { metricsPort: metricsPort === 'off' ? undefined : metricsPort, metricsHost };
  },
});
