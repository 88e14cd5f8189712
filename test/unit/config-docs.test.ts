import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configVariables, SECRET_FILE_VARIABLES } from '../../src/cli/config.ts';
import {
  comment,
  composeDefaults,
  configDocFiles,
  describeDifference,
  renderEnvExample,
  replaceBetweenMarkers,
  TABLE_END,
  TABLE_START,
} from '../../tools/docs/config-docs.ts';
import { useDocsToolOnCopy } from '../support/docs-tool.ts';

/**
 * The README's configuration table, `.env.example` and docker-compose.yml's pass-through block
 * are generated from the declarations src/cli/config.ts composes (`npm run docs:config`). CI runs this test: a variable added, changed or
 * described differently without regenerating them fails here, naming the stale file.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('configuration documentation', () => {
  it.each(['README.md', '.env.example', 'docker-compose.yml'])(
    'when %s is compared with what src/cli/config.ts declares, then it is current',
    async (name) => {
      const file = (await configDocFiles(ROOT)).find((f) => f.file === name)!;
      expect(
        file.current === file.expected,
        `${name} is stale (${describeDifference(file)}): run \`npm run docs:config\` and commit the result`,
      ).toBe(true);
    },
  );

  it('when the declaration is read, then every variable is described, and every secret is optional text', () => {
    const variables = configVariables();
    expect(variables.length).toBeGreaterThan(60);
    for (const variable of variables) {
      expect(variable.doc.trim(), variable.name).not.toBe('');
      if (variable.secret) expect(variable.default, variable.name).toBeUndefined();
    }
    expect([...SECRET_FILE_VARIABLES].sort()).toEqual(
      variables
        .filter((v) => v.secret)
        .map((v) => v.name)
        .sort(),
    );
  });

  it('when a variable has a Compose default of its own, then .env.example leaves it commented out, saying both', () => {
    const variables = configVariables().filter((v) => ['PORT', 'TRUST_PROXY'].includes(v.name));
    const text = renderEnvExample(
      variables,
      composeDefaults('TRUST_PROXY: ${TRUST_PROXY:-uniquelocal}\nimage: ${IMAGE:-x:1}'),
    );
    expect(text).toContain('\nPORT=3000\n');
    expect(text).toContain('\n# TRUST_PROXY=false   (default false; Compose: uniquelocal)\n');
    expect(text).toContain('\n# IMAGE=x:1\n');
  });

  it('when prose is turned into comments, then no line passes 100 columns and no code span is split', () => {
    const lines = comment(
      `${'word '.repeat(30)}\`npm run feed -- dead-letters\` and [docs/feed.md](docs/feed.md)`,
    );
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    expect(lines.join('\n')).toContain('`npm run feed -- dead-letters`');
    expect(lines.join('\n')).not.toContain('](');
  });

  it('when the README has no markers, then nothing is replaced', () => {
    expect(replaceBetweenMarkers('# Title\n\n| a |\n', 'x')).toBeUndefined();
    expect(replaceBetweenMarkers(`a\n${TABLE_START}\nold\n${TABLE_END}\nb\n`, '| new |')).toBe(
      `a\n${TABLE_START}\n\n| new |\n\n${TABLE_END}\nb\n`,
    );
  });
});

describe('npm run docs:config', () => {
  const tool = useDocsToolOnCopy('generate-config-docs.ts', [
    'README.md',
    '.env.example',
    'docker-compose.yml',
    '.prettierrc.json',
  ]);
  const run = tool.run;

  it('when a file is stale, then --check exits 1 naming it, and a run without --check rewrites it', async () => {
    const readme = tool.path('README.md');
    const fresh = readFileSync(readme, 'utf8');
    writeFileSync(readme, fresh.replace('| HTTP port ', '| the HTTP port '));

    const check = await run('--check');
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(/^README\.md is stale: .*line \d+.*npm run docs:config/m);
    expect(check.stdout).toContain('.env.example: up to date');

    const write = await run();
    expect(write.code).toBe(0);
    expect(write.stdout).toContain('README.md: written');
    expect(readFileSync(readme, 'utf8')).toBe(fresh);
  });

  it('when a variable is missing from the Compose pass-through block, then --check names the file and a run puts it back', async () => {
    const compose = tool.path('docker-compose.yml');
    const fresh = readFileSync(compose, 'utf8');
    expect(fresh).toMatch(/^ {2}RETENTION_RUN_MAX_MS:$/m);
    writeFileSync(compose, fresh.replace(/^ {2}RETENTION_RUN_MAX_MS:\n/m, ''));

    const check = await run('--check');
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(/^docker-compose\.yml is stale: /m);

    const write = await run();
    expect(write.code).toBe(0);
    expect(readFileSync(compose, 'utf8')).toBe(fresh);
    // Development-only variables stay out: the image has no embedded Postgres.
    expect(fresh).not.toMatch(/^ {2}EMBEDDED_POSTGRES_(DIR|PORT):/m);
  });
});
