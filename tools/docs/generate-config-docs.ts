/**
 * npm run docs:config [-- --check]   (--help for usage)
 *
 * Writes the README's configuration table, `.env.example` and docker-compose.yml's pass-through
 * block from the one declaration of each variable (the modules' settings, composed in
 * src/cli/config.ts). With --check it writes
 * nothing and exits 1 when either file is stale, naming it; 2 on bad usage or when a file cannot
 * be rendered (tools/common/run-tool.ts).
 */
import path from 'node:path';
import {
  COMPOSE_END,
  COMPOSE_START,
  configDocFiles,
  TABLE_END,
  TABLE_START,
  type DocFile,
} from './config-docs.ts';
import { UsageError } from '../../src/lib/command-line/errors.ts';
import { runTool } from '../common/run-tool.ts';
import { writeDocFiles } from './write-doc-files.ts';

const USAGE = `Usage: npm run docs:config [-- --check]

Writes, from the declaration of every variable (the modules' settings, composed in
src/cli/config.ts: each variable's type, default, description, secret or not):
  README.md     the configuration table, between the lines
                ${TABLE_START} and ${TABLE_END}
  .env.example  every variable with its description and default, in sections
  docker-compose.yml
                the receivers' pass-through variables, between the lines
                ${COMPOSE_START} and ${COMPOSE_END}

  --check       write nothing; exit 1 naming each file that differs from what would be
                written (a test in npm test does the same check)
  --dir <path>  the project to check or write (default: this checkout)
  --help        show this text
`;

const THIS_PROJECT = path.resolve(import.meta.dirname, '../..');

/** Writes (or with `check`, compares) every generated file; a stale one with `check` is NotDone. */
async function writeConfigDocs(projectDir: string, { check }: { check: boolean }): Promise<void> {
  let files: DocFile[];
  try {
    files = await configDocFiles(projectDir);
  } catch (error) {
    // A file that cannot be rendered (a marker missing): the project given is not one to write.
    throw new UsageError(error instanceof Error ? error.message : String(error), '');
  }
  writeDocFiles(projectDir, files, {
    check,
    command: 'npm run docs:config',
    source: 'src/cli/config.ts',
  });
}

await runTool(
  {
    name: 'docs:config',
    help: USAGE,
    options: [{ flags: '--check' }, { flags: '--dir <path>' }],
    run: ({ options }) =>
      writeConfigDocs(path.resolve((options.dir as string | undefined) ?? THIS_PROJECT), {
        check: options.check === true,
      }),
  },
  'docs:config failed',
);
