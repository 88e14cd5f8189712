import { existsSync, readFileSync } from 'node:fs';
import { parseArgs, parseEnv } from 'node:util';
import { UsageError } from '../lib/usage-error.ts';

export const USAGE = `Usage: main serve [--dotenv <path>] [--help]

Runs the webhook receiver, configured from the environment (README.md, "Configuration").

  --dotenv <path>  also read variables from this file when it exists (\`npm start\` passes
                   .env); a variable set in the process environment wins over the file
  --help           show this text
`;

export interface StartOptions {
  help: boolean;
  envFile: string | undefined;
}

export function parseStartOptions(argv: readonly string[]): StartOptions {
  try {
    const { values } = parseArgs({
      args: [...argv],
      // Not --env-file: node and tsx take that one for themselves, and fail when the file is missing.
      options: { dotenv: { type: 'string' }, help: { type: 'boolean', default: false } },
      strict: true,
    });
    return { help: values.help, envFile: values.dotenv };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : 'unreadable arguments', USAGE);
  }
}

/**
 * The environment to configure from: the file's variables under the process's own, so an
 * operator's `PORT=3001 npm start` overrides what `.env` says (as Docker Compose does).
 */
export function environmentWith(
  envFile: string | undefined,
  env: NodeJS.ProcessEnv,
): { env: Record<string, string | undefined>; fileRead: boolean } {
  if (envFile === undefined || !existsSync(envFile)) return { env, fileRead: false };
  return { env: { ...parseEnv(readFileSync(envFile, 'utf8')), ...env }, fileRead: true };
}
