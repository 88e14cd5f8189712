/**
 * npm run docs:config [-- --check]   (--help for usage)
 *
 * Writes the README's configuration table, `.env.example` and docker-compose.yml's pass-through
 * block from the one declaration of each variable (the modules' settings, composed in
 * src/cli/config.ts). With --check it writes nothing and exits 1 when either file is
 * stale, naming it; 2 on bad usage or when a file cannot be rendered.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  COMPOSE_END,
  COMPOSE_START,
  configDocFiles,
  describeDifference,
  TABLE_END,
  TABLE_START,
  type DocFile,
} from './config-docs.ts';

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

async function main(argv: readonly string[]): Promise<number> {
  let check: boolean;
  let projectDir: string;
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: {
        check: { type: 'boolean', default: false },
        dir: { type: 'string', default: THIS_PROJECT },
        help: { type: 'boolean' },
      },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    check = values.check;
    projectDir = path.resolve(values.dir);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  let files: DocFile[];
  try {
    files = await configDocFiles(projectDir);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  let stale = 0;
  for (const file of files) {
    if (file.current === file.expected) {
      console.log(`${file.file}: up to date (${file.what})`);
    } else if (check) {
      stale += 1;
      console.error(
        `${file.file} is stale: it differs from what src/cli/config.ts declares (${describeDifference(file)}). Run \`npm run docs:config\` and commit the result.`,
      );
    } else {
      writeFileSync(path.join(projectDir, file.file), file.expected);
      console.log(`${file.file}: written (${file.what})`);
    }
  }
  return stale > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.stack : String(error));
    process.exit(2);
  },
);
