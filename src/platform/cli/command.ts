import type { DatabaseConfig } from '../../lib/database/settings.ts';
import type { OptionDescription } from '../../lib/command-line/command-description.ts';
import { NotDone, UsageError } from '../../lib/command-line/errors.ts';
import { helpRows } from '../../lib/command-line/help-rows.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Db } from '../../lib/database/database.ts';
import type { ProviderClient } from '../client/provider-client.ts';
import type { ProviderClientConfig } from '../client/settings.ts';

/**
 * One CLI command: its options (each with a help line), and what it does. `run` returns the
 * JSON to print; it throws a ProviderError, a UsageError or a NotDone (notDone) to fail.
 */
export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** What a command is configured with: the platform's API, and the receiver's database. */
export type CommandConfig = ProviderClientConfig & DatabaseConfig;

interface CommandContext {
  client: ProviderClient;
  config: CommandConfig;
  logger: Logger;
  /** The receiver's database, opened on first use (only refund needs it). */
  database(): Promise<Db>;
  /** A line of progress on stderr (stdout holds only the JSON result). */
  progress(line: string): void;
  env: Record<string, string | undefined>;
  now(): number;
}

interface CommandOption {
  type: 'string' | 'boolean';
  multiple?: boolean;
  help: string;
}

export interface Command {
  name: string;
  summary: string;
  options: Record<string, CommandOption>;
  run(context: CommandContext, values: OptionValues): Promise<unknown>;
}

/**
 * The command ran as asked but what it was for is not done (a refund still in doubt, a
 * resolution refused): exit 1, with `details` as JSON on stderr. Not a usage error: running it
 * again later, or after the step the message names, is the way on.
 */
export function notDone(message: string, details: Record<string, unknown> = {}): NotDone {
  return new NotDone(message, { error: message, ...details });
}

/** The command's options as the command line reads them. */
export function optionDescriptions(command: Command): OptionDescription[] {
  return Object.entries(command.options).map(([name, option]) => ({
    flags: `--${name}${option.type === 'string' ? ' <value>' : ''}`,
    ...(option.multiple && { repeatable: true }),
  }));
}

/** The values read, by the option's name as written (the command line's are camelCase). */
export function optionValues(
  command: Command,
  read: Readonly<Record<string, unknown>>,
): OptionValues {
  return Object.fromEntries(
    Object.keys(command.options).map((name) => [
      name,
      read[
        name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase())
      ] as OptionValues[string],
    ]),
  );
}

export function commandHelp(script: string, command: Command): string {
  const rows = Object.entries(command.options).map(
    ([name, option]) =>
      [`--${name}${option.type === 'string' ? ' <value>' : ''}`, option.help] as const,
  );
  return [
    `usage: npm run ${script} -- ${command.name} [options]`,
    '',
    command.summary,
    '',
    helpRows([...rows, ['--help', 'this help']], 32),
  ].join('\n');
}

/** A string option's value, or a UsageError naming it. */
export function required(values: OptionValues, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function optional(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A whole number option (skip, take). */
export function optionalCount(values: OptionValues, name: string): number | undefined {
  const value = optional(values, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}
