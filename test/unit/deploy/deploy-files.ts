import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  configVariables,
  loadConfig,
  SECRET_FILE_VARIABLES,
  type Config,
} from '../../../src/cli/config.ts';

/** What the deployment files are checked against: the service's own configuration. */

export const ROOT = path.resolve(import.meta.dirname, '../../..');

export const read = (relative: string): string => readFileSync(path.join(ROOT, relative), 'utf8');

/** Every variable the service reads, as src/cli/config.ts composes them: one added is checked here. */
export const CONFIG_VARIABLES: readonly string[] = configVariables().map((v) => v.name);

/** Secrets: never a value in a deployment file, only `NAME_FILE` (or a bare pass-through). */
export const SECRET_VARIABLES: readonly string[] = SECRET_FILE_VARIABLES;

export const FILE_VARIABLES: readonly string[] = SECRET_VARIABLES.map((name) => `${name}_FILE`);

/** The service's defaults, as it computes them. */
export const DEFAULTS: Config = loadConfig({ ALLOW_NO_WEBHOOK_SECRET: 'true' });

/** "30s", "1m30s", "500ms" (Compose and nginx durations) in milliseconds. */
export function durationMs(text: string): number {
  let total = 0;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text.trim()) {
    throw new Error(`not a duration: ${text}`);
  }
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  for (const [, amount, u] of parts) total += Number(amount) * unit[u as keyof typeof unit];
  return total;
}

/** A container image reference with an explicit tag or digest, never `latest`. */
export function imageProblem(image: string): string | undefined {
  const name = image.split('@')[0] ?? image;
  const lastSegment = name.split('/').pop() ?? name;
  if (image.includes('@sha256:')) return undefined;
  if (!lastSegment.includes(':')) return `${image}: no tag (means latest)`;
  if (lastSegment.endsWith(':latest')) return `${image}: latest`;
  return undefined;
}
