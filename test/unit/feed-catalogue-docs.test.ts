import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { feedCatalogue } from '../../src/feed/catalogue/catalogue.ts';
import { describeDifference } from '../../tools/docs/config-docs.ts';
import { FEED_SCHEMA_FILE, feedSchemaDocFile } from '../../tools/docs/feed-schema-docs.ts';
import { useDocsToolOnCopy } from '../support/docs-tool.ts';

/**
 * docs/feed-events.schema.json is generated from src/feed/catalogue/ (`npm run
 * docs:feed-schema`). CI runs this test: a change to the data contract or the catalogue without
 * regenerating the file fails here.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the feed event catalogue in docs/', () => {
  it(`when ${FEED_SCHEMA_FILE} is compared with what src/feed/catalogue/ generates, then it is current`, async () => {
    const file = await feedSchemaDocFile(ROOT);
    expect(
      file.current === file.expected,
      `${FEED_SCHEMA_FILE} is stale (${describeDifference(file)}): run \`npm run docs:feed-schema\` and commit the result`,
    ).toBe(true);
    // The same catalogue GET /feed/schema serves.
    const committed = JSON.parse(file.current ?? '{}') as Record<string, unknown>;
    expect(committed).toEqual({
      $comment: expect.any(String),
      ...(JSON.parse(JSON.stringify(feedCatalogue())) as object),
    });
  });
});

describe('npm run docs:feed-schema', () => {
  const tool = useDocsToolOnCopy('generate-feed-schema.ts', [FEED_SCHEMA_FILE, '.prettierrc.json']);
  const run = tool.run;

  it('when the file is stale, then --check exits 1 naming it, and a run without --check rewrites it', async () => {
    const target = tool.path(FEED_SCHEMA_FILE);
    const fresh = readFileSync(target, 'utf8');
    writeFileSync(target, fresh.replace('"money": {', '"money": { "type": "number",'));

    const check = await run('--check');
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(
      /^docs\/feed-events\.schema\.json is stale: .*line \d+.*npm run docs:feed-schema/m,
    );

    const write = await run();
    expect(write.code).toBe(0);
    expect(write.stdout).toContain(`${FEED_SCHEMA_FILE}: written`);
    expect(readFileSync(target, 'utf8')).toBe(fresh);
  });
});
