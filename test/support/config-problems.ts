import { loadConfig } from '../../src/cli/config.ts';
import { ConfigError } from '../../src/lib/config/config-error.ts';

/** The receiver refuses to start without being told about the shared secret. */
export const SECRET = { WEBHOOK_SECRETS: 'Basic abc' };

/** The problems the composed configuration reports for `env` (it must report some). */
export function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
