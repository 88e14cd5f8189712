import type { CommandDescription } from '../../lib/command-line/command-description.ts';
import { NotDone, UsageError } from '../../lib/command-line/errors.ts';
import { helpRows, subcommandHelp, type HelpRow } from '../../lib/command-line/help-rows.ts';
import {
  addSecret,
  CONFIGURED,
  findEndpoint,
  listEndpoints,
  removeEndpoint,
  retireOldestSecret,
  setEndpointEnabled,
  undeliveredCounts,
} from '../endpoints/endpoint-store.ts';
import { generateWebhookSecret, secretFingerprint } from '../endpoints/endpoint-secrets.ts';
import { addEndpointCommand } from './endpoint-add.ts';
import { endpointDetails, endpointTable } from './endpoint-listing.ts';
import { SECRET_OPTION, SETTING_OPTIONS } from './endpoint-options.ts';
import { refuseForConfigured, updateEndpointCommand } from './endpoint-update.ts';
import { USAGE, WIDTH, type OperatorDeps } from './command-deps.ts';

/** `feed endpoints <command>`: where the feed sends events (docs/feed.md, "Endpoints"). */

const ROWS = {
  add: [
    [
      'endpoints add <name> (--url URL | --nats URL --subject PREFIX [--stream NAME] | --rabbitmq URL --exchange NAME) --types LIST',
      [
        '[--secret whsec_…] [--user NAME --credentials-file PATH] [--rate N/s] [--timeout-ms N]',
        '[--concurrency N] [--max-age-ms N] [--start now|<position>|<ISO time>] [--disabled]',
        'a new endpoint. --types: exact types, prefix.* or * (comma-separated). URLs:',
        'https, or http to 127.0.0.1/localhost/[::1]; never a user or password (a',
        "broker's user in --user, its password (or a NATS token, without --user) in\n--credentials-file). Without --secret, one is made",
        'and printed this once. --start (default now): it gets the events after that',
        'position (a time: the events created from then on); never beyond the last one',
      ].join('\n'),
    ],
  ],
  list: [['endpoints list', 'every endpoint: kind, target, types, enabled, paused, secrets count']],
  show: [
    ['endpoints show <name>', 'its settings, secret fingerprints (sha256, 8 hex) and deliveries'],
  ],
  update: [
    [
      'endpoints update <name> [--url URL] [--types LIST] [--rate N/s] [--timeout-ms N] [--concurrency N] [--max-age-ms N] [--credentials-file PATH]',
      'change what is given (a new filter applies to events not yet fanned out)',
    ],
  ],
  disable: [['endpoints disable <name>', 'stop sending to it (its position and rows are kept)']],
  enable: [['endpoints enable <name>', 'send to it again, from where it stopped']],
  remove: [
    [
      'endpoints remove <name> [--force]',
      'delete a disabled endpoint with its rows and attempts; refused while enabled,\nand without --force while it has pending events or dead letters',
    ],
  ],
  'rotate-secret': [
    [
      'endpoints rotate-secret <name> [--secret whsec_…]',
      'add a second secret (messages are signed with both); printed once when made;\nrefused if it has two already',
    ],
  ],
  'retire-secret': [
    ['endpoints retire-secret <name>', 'drop the oldest secret, once consumers verify the newest'],
  ],
} satisfies Record<string, HelpRow[]>;

const ENDPOINTS_HELP = `${USAGE}endpoints <command>

Where the feed sends events: each endpoint with its own filter, secrets, limits, position and
dead letters. \`configured\` is the one FEED_HTTP_URL declares (its URL, secrets and limits stay
in the environment). Changes take effect on every instance within seconds, without a restart.

${helpRows([...Object.values(ROWS).flat(), ['--help', 'this text']], WIDTH)}`;

/** The row `feed --help` shows for the group. */
export const ENDPOINTS_ROW: HelpRow = [
  'endpoints <command>',
  'add, list, show, update, disable, enable, remove endpoints, rotate their\nsecrets (feed endpoints --help)',
];

export function endpointsCommand({ io, withDatabase }: OperatorDeps): CommandDescription {
  const { out, err } = io;
  const sub = (
    name: keyof typeof ROWS,
    described: Omit<CommandDescription, 'name' | 'help'>,
  ): CommandDescription => ({ name, help: subcommandHelp(USAGE, ROWS[name], WIDTH), ...described });
  const named = (command: string, name: string | undefined): string => {
    if (name === undefined) throw new UsageError(`endpoints ${command} needs an endpoint name`);
    return name;
  };
  const missing = (name: string) => new NotDone(`no endpoint named ${name} (endpoints list)`);
  return {
    name: 'endpoints',
    help: ENDPOINTS_HELP,
    commands: [
      sub('add', {
        arguments: ['[name]'],
        options: [
          { flags: '--url <url>' },
          { flags: '--nats <url>' },
          { flags: '--subject <prefix>' },
          { flags: '--stream <name>' },
          { flags: '--rabbitmq <url>' },
          { flags: '--exchange <name>' },
          { flags: '--user <name>' },
          SECRET_OPTION,
          ...SETTING_OPTIONS,
          { flags: '--start <start>' },
          { flags: '--disabled' },
        ],
        run: ({ args: [name], options }) =>
          withDatabase((db) => addEndpointCommand(db, name, options, io)),
      }),
      sub('list', {
        run: () =>
          withDatabase(async (db) => {
            for (const line of endpointTable(await listEndpoints(db))) out(line);
          }),
      }),
      sub('show', {
        arguments: ['[name]'],
        run: ({ args: [given] }) =>
          withDatabase(async (db) => {
            const name = named('show', given);
            const endpoint = await findEndpoint(db, name);
            if (!endpoint) throw missing(name);
            for (const line of await endpointDetails(db, endpoint)) out(line);
          }),
      }),
      sub('update', {
        arguments: ['[name]'],
        options: [{ flags: '--url <url>' }, ...SETTING_OPTIONS],
        run: ({ args: [name], options }) =>
          withDatabase((db) => updateEndpointCommand(db, name, options, io)),
      }),
      ...(['disable', 'enable'] as const).map((command) =>
        sub(command, {
          arguments: ['[name]'],
          run: ({ args: [given] }) =>
            withDatabase(async (db) => {
              const name = named(command, given);
              if (!(await setEndpointEnabled(db, name, command === 'enable'))) throw missing(name);
              out(`endpoint ${name} ${command}d`);
            }),
        }),
      ),
      sub('remove', {
        arguments: ['[name]'],
        options: [{ flags: '--force' }],
        run: ({ args: [given], options }) =>
          withDatabase(async (db) => {
            const name = named('remove', given);
            if (name === CONFIGURED) {
              throw new UsageError(
                `endpoint ${CONFIGURED} is declared by configuration: unset FEED_HTTP_URL to stop it, or endpoints disable ${CONFIGURED}`,
              );
            }
            const endpoint = await findEndpoint(db, name);
            if (!endpoint) throw missing(name);
            if (endpoint.enabled) {
              throw new NotDone(
                `endpoint ${name} is enabled: endpoints disable ${name} first (nothing removed)`,
              );
            }
            const { pending, dead } = await undeliveredCounts(db, endpoint.id);
            if ((pending > 0 || dead > 0) && options.force !== true) {
              throw new NotDone(
                `endpoint ${name} has ${pending} pending event(s) and ${dead} dead letter(s) never delivered; --force removes them with it (nothing removed)`,
              );
            }
            const outcome = await removeEndpoint(db, name);
            if (outcome === 'missing') throw missing(name);
            if (outcome === 'enabled')
              throw new NotDone(`endpoint ${name} was enabled meanwhile (nothing removed)`);
            if (pending > 0 || dead > 0) {
              err(
                `--force: ${pending} pending event(s) and ${dead} dead letter(s) removed undelivered`,
              );
            }
            out(`removed endpoint ${name} with its delivery rows and attempts`);
          }),
      }),
      sub('rotate-secret', {
        arguments: ['[name]'],
        options: [SECRET_OPTION],
        run: ({ args: [given], options }) =>
          withDatabase(async (db) => {
            const name = named('rotate-secret', given);
            if (name === CONFIGURED)
              refuseForConfigured('secrets', 'FEED_HTTP_SECRET (comma-separated: old,new)');
            const secret = (options.secret as string | undefined) ?? generateWebhookSecret();
            const outcome = await addSecret(db, name, secret);
            if (outcome === 'missing') throw missing(name);
            if (outcome === 'full') {
              throw new NotDone(
                `endpoint ${name} has two secrets already: endpoints retire-secret ${name} once its consumers verify with the newest (nothing added)`,
              );
            }
            out(
              `endpoint ${name}: added secret sha256:${secretFingerprint(secret)}; messages are signed with every secret it holds`,
            );
            if (options.secret === undefined) {
              out(`new signing secret (shown this once; give it to the consumer): ${secret}`);
            }
          }),
      }),
      sub('retire-secret', {
        arguments: ['[name]'],
        run: ({ args: [given] }) =>
          withDatabase(async (db) => {
            const name = named('retire-secret', given);
            if (name === CONFIGURED) refuseForConfigured('secrets', 'FEED_HTTP_SECRET');
            const before = await findEndpoint(db, name);
            if (!before) throw missing(name);
            const outcome = await retireOldestSecret(db, name);
            if (outcome === 'missing') throw missing(name);
            if (outcome === 'last') {
              throw new NotDone(
                `endpoint ${name} has only one secret: it is never left with none (nothing retired)`,
              );
            }
            const oldest = before.secrets[0];
            out(
              `endpoint ${name}: retired secret${oldest ? ` sha256:${secretFingerprint(oldest)}` : ''}`,
            );
          }),
      }),
    ],
  };
}
