import type { Db } from '../../lib/database/database.ts';
import type { Endpoint } from '../endpoints/endpoint-store.ts';
import { secretFingerprint } from '../endpoints/endpoint-secrets.ts';

/**
 * Endpoints as `endpoints list` and `endpoints show` print them: everything an operator needs
 * to know where events go, never a secret or a credential (a secret by its fingerprint only).
 */

/** The target as printed: a URL without user or password (none is stored; this is the belt). */
function printableTarget(endpoint: Endpoint): string {
  if (endpoint.target === null) return '(FEED_HTTP_URL)';
  try {
    const url = new URL(endpoint.target);
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return '(not a URL)';
  }
}

function secretsSummary(endpoint: Endpoint): string {
  return endpoint.declared_by === 'configuration'
    ? '(FEED_HTTP_SECRET)'
    : String(endpoint.secrets.length);
}

function stateOf(endpoint: Endpoint): string {
  return [endpoint.enabled ? 'enabled' : 'disabled', endpoint.paused && 'paused']
    .filter(Boolean)
    .join(', ');
}

/** One line per endpoint, under a header, columns padded to the widest. */
export function endpointTable(endpoints: readonly Endpoint[]): string[] {
  const rows = [
    ['name', 'kind', 'target', 'types', 'state', 'secrets'],
    ...endpoints.map((e) => [
      e.name,
      e.kind,
      printableTarget(e),
      e.types.join(','),
      stateOf(e),
      secretsSummary(e),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  '),
  );
}

/** Its delivery rows by state: what the relay has done with what it was given. */
async function deliveryCounts(db: Db, endpointId: string): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('feed_endpoint_events')
    .select(['state', db.fn.countAll<string>().as('n')])
    .where('endpoint_id', '=', endpointId)
    .groupBy('state')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.state, Number(row.n)]));
}

/** `endpoints show`: every column but secrets and credentials, and its deliveries by state. */
export async function endpointDetails(db: Db, e: Endpoint): Promise<string[]> {
  const configured = e.declared_by === 'configuration';
  const counts = await deliveryCounts(db, e.id);
  const options = Object.entries(e.options);
  const line = (label: string, value: string) => `${`${label}:`.padEnd(16)}${value}`;
  return [
    line('name', e.name),
    line('kind', e.kind),
    line('target', printableTarget(e)),
    ...options.map(([key, value]) => line(key, String(value))),
    line('types', e.types.join(',')),
    line('state', stateOf(e) + (e.paused && e.paused_reason ? ` (${e.paused_reason})` : '')),
    line(
      'secrets',
      configured
        ? 'FEED_HTTP_SECRET (in the environment)'
        : e.secrets.length === 0
          ? 'none (messages unsigned)'
          : e.secrets
              .map(
                (s, i) =>
                  `sha256:${secretFingerprint(s)}${i === e.secrets.length - 1 ? ' (newest)' : ''}`,
              )
              .join(', '),
    ),
    ...(e.kind === 'http' ? [] : [line('credentials', e.credentials === null ? 'none' : 'set')]),
    line('rate', e.rate_per_second === null ? 'unlimited' : `${e.rate_per_second}/s per instance`),
    line('timeout', configured ? 'FEED_HTTP_TIMEOUT_MS' : `${e.timeout_ms} ms`),
    line('concurrency', configured ? 'FEED_HTTP_CONCURRENCY' : String(e.concurrency)),
    line('max age', configured ? 'FEED_MAX_AGE_MS' : `${e.max_age_ms} ms`),
    line('fanned through', `position ${e.fanned_through}`),
    line(
      'deliveries',
      `${counts.pending ?? 0} pending, ${counts.sent ?? 0} sent, ${counts.dead ?? 0} dead`,
    ),
    line('declared by', e.declared_by),
    line('created', e.created_at.toISOString()),
    line('updated', e.updated_at.toISOString()),
  ];
}
