/**
 * npm run docs:feed-schema [-- --check]   (--help for usage)
 *
 * Writes docs/feed-events.schema.json, the feed's event catalogue, from src/feed/catalogue/.
 * With --check it writes nothing and exits 1 when the file is stale; 2 on bad usage
 * (tools/common/run-tool.ts).
 */
import path from 'node:path';
import { runTool } from '../common/run-tool.ts';
import { FEED_SCHEMA_FILE, feedSchemaDocFile } from './feed-schema-docs.ts';
import { writeDocFiles } from './write-doc-files.ts';

const USAGE = `Usage: npm run docs:feed-schema [-- --check]

Writes ${FEED_SCHEMA_FILE}: the feed's event catalogue (its version and the JSON Schema of
every event type, as GET /feed/schema serves it), generated from the data contract by
src/feed/catalogue/. The versioning rule is docs/feed-catalogue.md.

  --check       write nothing; exit 1 when the file differs from what would be written
                (a test in npm test does the same check)
  --dir <path>  the project to check or write (default: this checkout)
  --help        show this text
`;

const THIS_PROJECT = path.resolve(import.meta.dirname, '../..');

await runTool(
  {
    name: 'docs:feed-schema',
    help: USAGE,
    options: [{ flags: '--check' }, { flags: '--dir <path>' }],
    run: async ({ options }) => {
      const projectDir = path.resolve((options.dir as string | undefined) ?? THIS_PROJECT);
      writeDocFiles(projectDir, [await feedSchemaDocFile(projectDir)], {
        check: options.check === true,
        command: 'npm run docs:feed-schema',
        source: 'src/feed/catalogue/',
      });
    },
  },
  'docs:feed-schema failed',
);
