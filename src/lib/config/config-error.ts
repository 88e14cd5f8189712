/** Every problem of a configuration at once, by variable name: exit 2 (src/cli/exit-codes.ts). */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}
