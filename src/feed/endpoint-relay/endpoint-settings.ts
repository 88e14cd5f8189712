import type { Db } from '../../lib/database/database.ts';
import { parseWebhookSecret } from '../../lib/webhook-secret.ts';
import type { SinkTarget } from '../sinks/create-sink.ts';

/** What one endpoint's relay runs by, read from its feed_endpoints row (and, for `configured`, the environment). */
export interface EndpointSettings {
  id: string;
  name: string;
  sink: SinkTarget;
  /** Key bytes of each secret, newest last: every attempt is signed with each. */
  secrets: readonly Buffer[];
  types: readonly string[];
  /** Attempts per second on this instance; null: no limit. */
  ratePerSecond: number | null;
  timeoutMs: number;
  /** Attempts in flight at once on this instance (different keys; one key is one at a time). */
  concurrency: number;
  maxAgeMs: number;
}

/**
 * The endpoint FEED_HTTP_URL declares (row `configured`): its URL, secrets and limits come from
 * the environment; its row holds its position, pause and delivery state.
 */
export interface ConfiguredEndpoint {
  url: string;
  secrets: readonly Buffer[];
  timeoutMs: number;
  concurrency: number;
  maxAgeMs: number;
}

/** An enabled endpoint this instance cannot run, and why (a secret that does not parse, say). */
export interface UnusableEndpoint {
  id: string;
  name: string;
  problem: string;
}

/**
 * Every enabled endpoint as its relay runs it. `configured` runs only where FEED_HTTP_URL is
 * set (`configured` given); elsewhere it is left out, so its cursor waits where it is.
 */
export async function readEndpointSettings(
  db: Db,
  configured: ConfiguredEndpoint | undefined,
): Promise<(EndpointSettings | UnusableEndpoint)[]> {
  const rows = await db
    .selectFrom('feed_endpoints')
    .select([
      'id',
      'name',
      'kind',
      'target',
      'options',
      'types',
      'secrets',
      'credentials',
      'rate_per_second',
      'timeout_ms',
      'concurrency',
      'max_age_ms',
      'declared_by',
    ])
    .where('enabled', '=', true)
    .orderBy('id')
    .execute();
  return rows.flatMap((row): (EndpointSettings | UnusableEndpoint)[] => {
    const common = {
      id: row.id,
      name: row.name,
      types: row.types,
      ratePerSecond: row.rate_per_second,
    };
    if (row.declared_by === 'configuration') {
      if (!configured) return [];
      return [
        {
          ...common,
          sink: { kind: row.kind, target: configured.url, options: {}, credentials: null },
          secrets: configured.secrets,
          timeoutMs: configured.timeoutMs,
          concurrency: configured.concurrency,
          maxAgeMs: configured.maxAgeMs,
        },
      ];
    }
    const keys = row.secrets.map(parseWebhookSecret);
    const bad = keys.findIndex((key) => typeof key === 'string');
    if (bad >= 0) return [{ ...common, problem: `secret ${bad + 1}: ${String(keys[bad])}` }];
    if (row.target === null) return [{ ...common, problem: 'no target' }];
    return [
      {
        ...common,
        sink: {
          kind: row.kind,
          target: row.target,
          options: row.options,
          credentials: row.credentials,
        },
        secrets: keys.filter((key): key is Buffer => typeof key !== 'string'),
        timeoutMs: row.timeout_ms,
        concurrency: row.concurrency,
        maxAgeMs: Number(row.max_age_ms),
      },
    ];
  });
}

/** True when `a` and `b` would be sent to the same place the same way (a new sink otherwise). */
export function sameSink(a: SinkTarget, b: SinkTarget): boolean {
  return (
    a.kind === b.kind &&
    a.target === b.target &&
    a.credentials === b.credentials &&
    JSON.stringify(a.options) === JSON.stringify(b.options)
  );
}
