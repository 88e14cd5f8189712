import type { ParseArgsConfig } from 'node:util';

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;
import type { DatabaseConfig } from '../../lib/database/settings.ts';
import { UsageError } from '../../lib/usage-error.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Db } from '../../lib/database/database.ts';
import type { ProviderClient } from '../client/provider-client.ts';
import type { ProviderClientConfig } from '../client/settings.ts';

/**
 * One CLI command: its options (each with a help line), and what it does. `run` returns the
 * JSON to print; it throws a ProviderError (or UsageError) to fail.
 */
export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** What a command is configured with: the platform's API, and the receiver's database. */
export type CommandConfig = ProviderClientConfig & DatabaseConfig;

export interface CommandContext {
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

export interface CommandOption {
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

export { UsageError };

/**
 * The command ran as asked but what it was for is not done (a refund still in doubt, a
 * resolution refused): exit 1, with `details` as JSON on stderr. Not a usage error: running it
 * again later, or after the step the message names, is the way on.
 */
export class NotDone extends Error {
  override readonly name = 'NotDone';
  readonly details: Record<string, unknown>;

  constructor(message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.details = details;
  }

  toJSON(): Record<string, unknown> {
    return { error: this.message, ...this.details };
  }
}

export function parseArgsOptions(command: Command): ParseArgsOptionsConfig {
  const options: ParseArgsOptionsConfig = { help: { type: 'boolean' } };
  for (const [name, option] of Object.entries(command.options)) {
    options[name] = { type: option.type, ...(option.multiple && { multiple: true }) };
  }
  return options;
}

export function commandHelp(script: string, command: Command): string {
  const lines = [`usage: npm run ${script} -- ${command.name} [options]`, '', command.summary, ''];
  for (const [name, option] of Object.entries(command.options)) {
    const value = option.type === 'string' ? ' <value>' : '';
    lines.push(`  --${name}${value}`.padEnd(34) + option.help);
  }
  lines.push('  --help'.padEnd(34) + 'this help');
  return lines.join('\n');
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
