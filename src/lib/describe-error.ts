/**
 * An error's message and its causes', for logs and command output: fetch's own errors say only
 * "fetch failed", with the reason ("connect ECONNREFUSED 127.0.0.1:9") in their cause.
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current !== undefined && depth < 4; depth += 1) {
    parts.push(current instanceof Error ? current.message : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': ');
}
