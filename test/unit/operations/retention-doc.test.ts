import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TYPED_TABLES } from '../../../src/receiver/contract.ts';

/**
 * docs/retention.md says how to size the tables by hand ("Measuring it again"): its query sums
 * every table a delivery leaves rows in. The ledger part of that list is the registry's typed
 * tables, so an event type with a table of its own must add it there.
 */

const DOC = readFileSync(path.resolve(import.meta.dirname, '../../../docs/retention.md'), 'utf8');

/** The SQL block of the doc that sizes the tables (the one with pg_total_relation_size). */
function sizingQuery(): string {
  const blocks = [...DOC.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  const sizing = blocks.filter((block) => block.includes('pg_total_relation_size'));
  expect(sizing, 'exactly one sizing query in docs/retention.md').toHaveLength(1);
  return sizing[0] ?? '';
}

describe('retention documentation', () => {
  it('when the sizing query of docs/retention.md is read, then it names every typed table of the registry, and the doc lists them', () => {
    const query = sizingQuery();
    const measuring = DOC.slice(DOC.indexOf('### Measuring it again'));
    for (const { table } of TYPED_TABLES) {
      expect(query, `the sizing query leaves out ${table}`).toContain(`'${table}'`);
      expect(measuring, `"Measuring it again" does not list ${table}`).toContain(`\`${table}\``);
    }
  });
});
