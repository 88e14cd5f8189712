import type { CommandIo, OptionValues } from '../../lib/command-line/command-description.ts';
import { NotDone, UsageError } from '../../lib/command-line/errors.ts';
import type { Db } from '../../lib/database/database.ts';
import { addEndpoint, ENDPOINT_NAME, type Endpoint } from '../endpoints/endpoint-store.ts';
import { brokerOptions, targetProblems } from '../endpoints/endpoint-target.ts';
import { generateWebhookSecret } from '../endpoints/endpoint-secrets.ts';
import { planStart, resolveStartPosition } from '../endpoints/start-position.ts';
import { readCredentials } from './endpoint-options.ts';

/**
 * `feed endpoints add <name> …`: a new endpoint, checked whole before it is stored (its name,
 * one target of one kind, its filter, secret and limits), starting after the position `--start`
 * names. A new endpoint has sent nothing, so `start-after`'s guard has nothing in flight to
 * protect: what remains is the position itself (never beyond the last one numbered, which would
 * skip events nobody has seen) and saying what it will not get, by type.
 */

/** The kind the call names, by which of --url, --nats, --rabbitmq it gives (exactly one). */
function kindAndTarget(options: OptionValues): { kind: Endpoint['kind']; target: string } {
  const given = (['url', 'nats', 'rabbitmq'] as const).filter(
    (flag) => typeof options[flag] === 'string',
  );
  const [flag] = given;
  if (given.length !== 1 || flag === undefined) {
    throw new UsageError('endpoints add needs exactly one of --url, --nats, --rabbitmq');
  }
  const kind: Endpoint['kind'] = flag === 'url' ? 'http' : flag;
  const target = options[flag] as string;
  const problems = targetProblems(kind, target);
  if (problems.length > 0) throw new UsageError(`--${flag}: ${problems.join('; ')}`);
  return { kind, target };
}

export async function addEndpointCommand(
  db: Db,
  name: string | undefined,
  options: OptionValues,
  { out, err }: CommandIo,
): Promise<void> {
  if (name === undefined || !ENDPOINT_NAME.test(name)) {
    throw new UsageError(
      'endpoints add needs a name: a-z, 0-9 and -, up to 63, not starting with -',
    );
  }
  const { kind, target } = kindAndTarget(options);
  const broker = brokerOptions(kind, options);
  if ('problems' in broker) throw new UsageError(broker.problems.join('; '));
  const types = options.types as string[] | undefined;
  if (types === undefined)
    throw new UsageError('endpoints add needs --types (e.g. payment.*,quarantine.*)');
  const credentialsFile = options.credentialsFile as string | undefined;
  if (credentialsFile !== undefined && kind === 'http') {
    throw new UsageError(
      '--credentials-file is for a broker (nats, rabbitmq); an http endpoint is verified by its signature',
    );
  }
  if (kind === 'rabbitmq' && credentialsFile !== undefined && options.user === undefined) {
    throw new UsageError('a rabbitmq endpoint with --credentials-file needs --user NAME');
  }
  const credentials = credentialsFile === undefined ? null : await readCredentials(credentialsFile);

  const start = await resolveStartPosition(db, (options.start as string | undefined) ?? 'now');
  if ('problem' in start) throw new UsageError(`--start: ${start.problem}`);
  const plan = await planStart(
    db,
    { id: null, name, types, fannedThrough: '0', paused: true },
    start.position,
  );

  const given = options.secret as string | undefined;
  const secret = given ?? generateWebhookSecret();
  const added = await addEndpoint(db, {
    name,
    kind,
    target,
    options: JSON.stringify(broker.options),
    types,
    secrets: [secret],
    credentials,
    rate_per_second: (options.rate as number | undefined) ?? null,
    ...(options.timeoutMs !== undefined && { timeout_ms: options.timeoutMs as number }),
    ...(options.concurrency !== undefined && { concurrency: options.concurrency as number }),
    ...(options.maxAgeMs !== undefined && { max_age_ms: options.maxAgeMs as number }),
    enabled: options.disabled !== true,
    fanned_through: start.position,
  });
  if (!added)
    throw new NotDone(`an endpoint named ${name} exists already (endpoints show ${name})`);

  out(
    `added endpoint ${name}: ${kind} ${target}, types ${types.join(',')}, ${added.enabled ? 'enabled' : 'disabled'}`,
  );
  out(
    `starts after position ${start.position}: ${plan.events} earlier event(s) its types select are not sent to it` +
      (plan.events > 0 ? ':' : ''),
  );
  for (const row of plan.byType) out(`  ${row.type.padEnd(28)}${String(row.events).padStart(8)}`);
  if (given === undefined) {
    out(`signing secret (shown this once; give it to the consumer): ${secret}`);
  }
  if (!added.enabled)
    err(`disabled: nothing is sent until npm run feed -- endpoints enable ${name}`);
}
