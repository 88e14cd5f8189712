import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding package.json, found upward from this file: the same answer whether the
 * code runs as TypeScript from src/ or compiled from dist/src/.
 */
export function projectDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the service code');
    dir = parent;
  }
  return dir;
}
