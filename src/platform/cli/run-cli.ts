import { parseArgs } from 'node:util';
import { ConfigError } from '../../lib/config/config-error.ts';
import type { ConfigLoader } from '../../lib/config/load-settings.ts';
import type { OperatorIo } from '../../lib/command-options.ts';
import { createLogger } from '../../lib/logger.ts';
import { openToolDatabase } from '../../lib/database/operator-database.ts';
import { providerClientFromConfig } from '../client/client-from-config.ts';
import { ProviderError } from '../client/protocol/provider-error.ts';
import {
  commandHelp,
  NotDone,
  parseArgsOptions,
  UsageError,
  type Command,
  type CommandConfig,
} from './command.ts';

/**
 * `npm run provider -- <command> [options]`: one command per platform endpoint, JSON on stdout,
 * progress and logs on stderr. Exit 0 done, 1 the platform refused or could not be reached, or
 * the work is not done (NotDone: a refund still in doubt, a resolution refused),
 * 2 bad usage (no command, too) or a request refused before sending (nothing was sent): the
 * policy of src/cli/exit-codes.ts.
 */
export interface CliIo extends OperatorIo {
  fetch?: typeof fetch;
}

/** `loadConfig`: the whole service's configuration, as src/cli/config.ts composes it. */
export async function runCli(
  script: string,
  commands: readonly Command[],
  io: CliIo,
  loadConfig: ConfigLoader<CommandConfig>,
): Promise<number> {
  const [name, ...rest] = io.argv;
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.err(overview(script, commands));
    return name === '--help' || name === 'help' ? 0 : 2;
  }
  let values;
  try {
    values = parseArgs({
      args: [...rest],
      options: parseArgsOptions(command),
      strict: true,
    }).values;
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${commandHelp(script, command)}`);
    return 2;
  }
  if (values.help) {
    io.out(commandHelp(script, command));
    return 0;
  }
  let closeDatabase: (() => Promise<void>) | undefined;
  try {
    const config = loadConfig(io.env);
    const logger = createLogger(io.env.LOG_LEVEL ?? 'warn', process.stderr);
    const client = providerClientFromConfig(config.provider, logger, {
      ...(io.fetch && { fetch: io.fetch }),
      ...(io.now && { now: io.now }),
    });
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
    return 0;
  } catch (error) {
    if (error instanceof NotDone) {
      io.err(JSON.stringify(error.toJSON(), null, 2));
      return 1;
    }
    if (error instanceof ProviderError) {
      io.err(JSON.stringify(error.toJSON(), null, 2));
      return error.kind === 'invalid-request' ? 2 : 1;
    }
    if (error instanceof UsageError || error instanceof ConfigError) {
      io.err(`${error.message}\n\n${commandHelp(script, command)}`);
      return 2;
    }
    throw error;
  } finally {
    await closeDatabase?.();
  }
}

function overview(script: string, commands: readonly Command[]): string {
  const lines = [
    `usage: npm run ${script} -- <command> [options]   (<command> --help for its options)`,
    '',
  ];
  for (const command of commands)
    lines.push(`  ${command.name.padEnd(18)}${command.summary.split('. ')[0]}`);
  return lines.join('\n');
}
