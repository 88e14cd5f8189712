import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, TYPED_TABLES } from '../../../src/receiver/events/event-types.ts';
import { PRUNE_STEPS } from '../../../src/cli/prune-steps.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * The registry of event types (src/receiver/events/event-types.ts) against the schema the
 * migrations build, on the real Postgres: what the compile-time checks cannot see (they compare
 * the contract with database.ts, which only mirrors migrations/).
 */

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database.drop();
});

interface SchemaColumn {
  table_name: string;
  column_name: string;
  data_type: string;
  is_nullable: 'YES' | 'NO';
}

const columnsOf = async (table: string) =>
  new Map(
    (
      await database.query<SchemaColumn>(
        `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = $1`,
        [table],
      )
    ).map((column) => [column.column_name, column]),
  );

describe('the registry of event types against the migrated schema', () => {
  it.each(TYPED_TABLES.map((t) => [t.table, t] as const))(
    'when %s is registered, then every column of its contract exists with its type and nullability',
    async (_name, typed) => {
      const columns = await columnsOf(typed.table);
      expect(columns.size).toBeGreaterThan(0);
      const want = typed.contract.columns.map((c) => ({
        column: c.column,
        type: c.sqlType,
        nullable: c.nullable,
      }));
      const got = typed.contract.columns.map((c) => ({
        column: c.column,
        type: columns.get(c.column)?.data_type,
        nullable: columns.get(c.column)?.is_nullable === 'YES',
      }));
      expect(got).toEqual(want);
      for (const column of typed.contract.deliveryColumns) expect(columns.has(column)).toBe(true);
      // And nothing else: a column the contract does not fill would stay null for ever.
      const filled = new Set([
        ...typed.contract.columns.map((c) => c.column),
        ...typed.contract.deliveryColumns,
      ]);
      expect([...columns.keys()].filter((column) => !filled.has(column))).toEqual([]);
    },
  );

  it.each(TYPED_TABLES.map((t) => [t.table, t] as const))(
    'when %s is registered, then its business key is a unique key of the table, in that order',
    async (_name, typed) => {
      const keys = await database.query<{ columns: string[] }>(
        `SELECT array_agg(a.attname ORDER BY k.n)::text[] AS columns
         FROM pg_index i
         CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
         WHERE i.indrelid = $1::regclass AND i.indisunique
         GROUP BY i.indexrelid`,
        [typed.table],
      );
      expect(keys.map((k) => k.columns)).toContainEqual([...typed.key]);
      expect(typed.key).toContain(typed.businessKey);
    },
  );

  it('when the schema has a typed table (money from a delivery), then the registry names it', async () => {
    const typed = await database.query<{ table_name: string }>(
      `SELECT c.table_name FROM information_schema.columns c
       JOIN information_schema.tables t USING (table_schema, table_name)
       WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
         AND c.column_name IN ('webhook_id', 'received_at', 'amount')
       GROUP BY c.table_name HAVING count(*) = 3 ORDER BY c.table_name`,
    );
    expect(typed.map((row) => row.table_name)).toEqual(TYPED_TABLES.map((t) => t.table).sort());
  });

  it('when an event is registered, then its table contract names it, and each name is one entry', () => {
    const names = EVENT_TYPES.map((entry) => entry.model.name.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
    for (const entry of EVENT_TYPES) {
      expect(entry.typed.contract.events).toContain(entry.model.name);
    }
    const contracted = TYPED_TABLES.flatMap((t) => t.contract.events).sort();
    expect(EVENT_TYPES.map((entry) => entry.model.name).sort()).toEqual(contracted);
  });

  it('when the prune runs, then no step of it names a typed table (the ledger is kept)', () => {
    const steps = new Set<string>(PRUNE_STEPS.map((step) => step.name));
    for (const typed of TYPED_TABLES) {
      expect(typed.retention).toBe('ledger');
      expect(steps.has(typed.table)).toBe(false);
    }
  });
});
