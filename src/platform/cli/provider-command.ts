import { ConfigError } from '../../lib/config/config-error.ts';
import type { ConfigLoader } from '../../lib/config/load-settings.ts';
import type { CommandDescription, OperatorIo } from '../../lib/command-line/command-description.ts';
import { NotDone, UsageError } from '../../lib/command-line/errors.ts';
import { helpRows } from '../../lib/command-line/help-rows.ts';
import { createLogger } from '../../lib/logger.ts';
import { openToolDatabase } from '../../lib/database/operator-database.ts';
import { providerClientFromConfig } from '../client/client-from-config.ts';
import { ProviderError } from '../client/protocol/provider-error.ts';
import {
  commandHelp,
  optionDescriptions,
  optionValues,
  type Command,
  type CommandConfig,
} from './command.ts';
import { PROVIDER_COMMANDS } from './commands.ts';

const SCRIPT = 'provider';

/**
 * `npm run provider -- <command> [options]`: one command per platform endpoint, JSON on stdout,
 * progress and logs on stderr. Done (exit 0); the platform refused or could not be reached, or
 * the work is not done (a refund still in doubt, a resolution refused): NotDone with the JSON
 * (exit 1); bad usage or configuration, or a request refused before sending (nothing was sent):
 * UsageError (exit 2) — src/cli/exit-codes.ts.
 */
/** `loadConfig`: the whole service's configuration, as src/cli/config.ts composes it. */
export function providerCommand(
  io: OperatorIo,
  loadConfig: ConfigLoader<CommandConfig>,
): CommandDescription {
  return {
    name: SCRIPT,
    help: overview(PROVIDER_COMMANDS),
    commands: PROVIDER_COMMANDS.map((command) => ({
      name: command.name,
      help: commandHelp(SCRIPT, command),
      options: optionDescriptions(command),
      run: ({ options }) =>
        runProviderCommand(command, optionValues(command, options), io, loadConfig),
    })),
  };
}

async function runProviderCommand(
  command: Command,
  values: ReturnType<typeof optionValues>,
  io: OperatorIo,
  loadConfig: ConfigLoader<CommandConfig>,
): Promise<void> {
  let closeDatabase: (() => Promise<void>) | undefined;
  try {
    const config = loadConfig(io.env);
    const logger = createLogger(io.env.LOG_LEVEL ?? 'warn', process.stderr);
    const client = providerClientFromConfig(config.provider, logger, io.now ? { now: io.now } : {});
    const result = await command.run(
      {
        client,
        config,
        logger,
        env: io.env,
        now: io.now ?? Date.now,
        progress: (line) => io.err(line),
        database: async () => {
          const database = await openToolDatabase(config, logger, io.projectDir);
          closeDatabase = () => database.close();
          return database.db;
        },
      },
      values,
    );
    io.out(JSON.stringify(result, null, 2));
  } catch (error) {
    if (error instanceof ProviderError) {
      // Refused before sending: the words of the call (the JSON names the field), nothing sent.
      if (error.kind === 'invalid-request') {
        throw new UsageError(JSON.stringify(error.toJSON(), null, 2), '');
      }
      throw new NotDone(error.message, error.toJSON());
    }
    // A bad variable is shown with the command's help, like bad words.
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  } finally {
    await closeDatabase?.();
  }
}

function overview(commands: readonly Command[]): string {
  return [
    `usage: npm run ${SCRIPT} -- <command> [options]   (<command> --help for its options)`,
    '',
    helpRows(
      commands.map((command) => [command.name, command.summary.split('. ')[0] ?? '']),
      18,
    ),
  ].join('\n');
}
