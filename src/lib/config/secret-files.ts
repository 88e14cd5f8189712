/**
 * Secrets a container platform mounts as files (Docker and Kubernetes secrets): `NAME_FILE`
 * names a file whose content (one trailing newline dropped) is NAME's value.
 */

const SECRET_FILE_MAX_BYTES = 64 * 1024;

export function readSecretFiles(
  env: Readonly<Record<string, string | undefined>>,
  secretNames: readonly string[],
  readFile: (path: string) => string,
): { env: Record<string, string | undefined>; problems: string[] } {
  const resolved = { ...env };
  const problems: string[] = [];
  for (const name of secretNames) {
    const file = env[`${name}_FILE`]?.trim();
    if (!file) continue;
    if (env[name] !== undefined && env[name]?.trim() !== '') {
      problems.push(`${name}_FILE: ${name} is set too; keep only one of them`);
      continue;
    }
    try {
      const text = readFile(file);
      if (Buffer.byteLength(text) > SECRET_FILE_MAX_BYTES) {
        problems.push(`${name}_FILE: ${file} is larger than 64 KiB`);
        continue;
      }
      resolved[name] = text.replace(/\r?\n$/, '');
    } catch (error) {
      // The reason (not found, no permission), never the content.
      const code = (error as { code?: unknown }).code;
      problems.push(
        `${name}_FILE: cannot read ${file}${typeof code === 'string' ? ` (${code})` : ''}`,
      );
    }
  }
  return { env: resolved, problems };
}
