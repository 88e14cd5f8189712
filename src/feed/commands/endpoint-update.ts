import type { CommandIo, OptionValues } from '../../lib/command-line/command-description.ts';
import { NotDone, UsageError } from '../../lib/command-line/errors.ts';
import type { Db } from '../../lib/database/database.ts';
import {
  CONFIGURED,
  findEndpoint,
  updateEndpoint,
  type EndpointChanges,
} from '../endpoints/endpoint-store.ts';
import { targetProblems } from '../endpoints/endpoint-target.ts';
import { readCredentials } from './endpoint-options.ts';

/**
 * `feed endpoints update <name> …`: changes what was given, checked as `add` checks it. The
 * endpoint `configured` takes its URL and limits from the environment: changing them here would
 * be overwritten (or ignored) there, so each is refused naming its variable; its filter and rate
 * are the row's own.
 */

/** Each option the environment holds for `configured`, and the variable that holds it. */
const DECLARED_BY_ENVIRONMENT: Record<string, string> = {
  url: 'FEED_HTTP_URL',
  timeoutMs: 'FEED_HTTP_TIMEOUT_MS',
  concurrency: 'FEED_HTTP_CONCURRENCY',
  maxAgeMs: 'FEED_MAX_AGE_MS',
  credentialsFile: 'FEED_HTTP_URL (an http endpoint has no credentials)',
};

/** What the environment declares for the configured endpoint, refused with the variable named. */
export function refuseForConfigured(what: string, variable: string): never {
  throw new UsageError(
    `endpoint ${CONFIGURED} is declared by configuration: its ${what} is set by ${variable} (in the environment), not here`,
  );
}

export async function updateEndpointCommand(
  db: Db,
  name: string | undefined,
  options: OptionValues,
  { out }: CommandIo,
): Promise<void> {
  if (name === undefined) throw new UsageError('endpoints update needs a name');
  const given = Object.keys(options).filter((key) => options[key] !== undefined);
  if (given.length === 0) {
    throw new UsageError(
      'endpoints update needs something to change: --url, --types, --rate, --timeout-ms, --concurrency, --max-age-ms or --credentials-file',
    );
  }
  const endpoint = await findEndpoint(db, name);
  if (!endpoint) throw new NotDone(`no endpoint named ${name} (endpoints list)`);
  if (endpoint.declared_by === 'configuration') {
    for (const key of given) {
      const variable = DECLARED_BY_ENVIRONMENT[key];
      if (variable) refuseForConfigured(`--${kebab(key)}`, variable);
    }
  }
  const changes: EndpointChanges = {};
  if (options.url !== undefined) {
    const url = options.url as string;
    const problems = targetProblems(endpoint.kind, url);
    if (problems.length > 0) throw new UsageError(`--url: ${problems.join('; ')}`);
    changes.target = url;
  }
  if (options.credentialsFile !== undefined) {
    if (endpoint.kind === 'http') {
      throw new UsageError('--credentials-file is for a broker endpoint (nats, rabbitmq)');
    }
    changes.credentials = await readCredentials(options.credentialsFile as string);
  }
  if (options.types !== undefined) changes.types = options.types as string[];
  if (options.rate !== undefined) changes.rate_per_second = options.rate as number;
  if (options.timeoutMs !== undefined) changes.timeout_ms = options.timeoutMs as number;
  if (options.concurrency !== undefined) changes.concurrency = options.concurrency as number;
  if (options.maxAgeMs !== undefined) changes.max_age_ms = options.maxAgeMs as number;
  if (!(await updateEndpoint(db, name, changes))) {
    throw new NotDone(`no endpoint named ${name} (removed meanwhile)`);
  }
  out(`updated endpoint ${name}: ${given.map((key) => `--${kebab(key)}`).join(', ')}`);
}

/** commander's attribute name as the option is written (`timeoutMs` → `timeout-ms`). */
function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}
