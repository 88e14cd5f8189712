import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

export const USAGE = `Usage: main serve [--dotenv <path>] [--help]

Runs the webhook receiver, configured from the environment (README.md, "Configuration").

  --dotenv <path>  also read variables from this file when it exists (\`npm start\` passes
                   .env); a variable set in the process environment wins over the file
  --help           show this text
`;

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
