import { describe, expect, it } from 'vitest';
import type { ColumnInfo, TableInfo } from '../stored/catalog.ts';
import { parentsFirst, planTable, type ColumnFacts } from '../stored/copy-plan.ts';
import { copyCount, copyStatement, ruleExpression, suffixWidth } from '../stored/copy-sql.ts';

const DELIVERY = { table: 'deliveries', column: 'webhook_id' };
const column = (name: string, type: string, extra: Partial<ColumnInfo> = {}): ColumnInfo => ({
  name,
  type,
  generated: false,
  sequence: undefined,
  ...extra,
});
const facts = (distinct: number, extra: Partial<ColumnFacts> = {}): ColumnFacts => ({
  distinct,
  nonNull: distinct,
  min: undefined,
  max: undefined,
  hex64: false,
  ...extra,
});

const deliveries: TableInfo = {
  name: 'deliveries',
  columns: [
    column('webhook_id', 'bigint'),
    column('event_name', 'text'),
    column('body_sha256', 'text'),
    column('received_at', 'timestamp with time zone'),
    column('payload', 'jsonb'),
  ],
  uniqueIndexes: [
    { name: 'deliveries_pkey', columns: ['webhook_id'], hasExpressions: false },
    { name: 'deliveries_once', columns: ['event_name', 'body_sha256'], hasExpressions: false },
  ],
  foreignKeys: [],
};

const events: TableInfo = {
  name: 'events',
  columns: [
    column('id', 'bigint', { sequence: 'public.events_id_seq' }),
    column('position', 'bigint'),
    column('first_delivery', 'bigint'),
    column('webhook_id', 'bigint'),
    column('upper_key', 'text', { generated: true }),
  ],
  uniqueIndexes: [
    { name: 'events_pkey', columns: ['id'], hasExpressions: false },
    { name: 'events_position', columns: ['position'], hasExpressions: false },
  ],
  foreignKeys: [
    { column: 'first_delivery', referencedTable: 'deliveries', referencedColumn: 'webhook_id' },
  ],
};

const rulesOf = (plan: ReturnType<typeof planTable>) =>
  Object.fromEntries(plan.columns.map((c) => [c.name, c.rule]));

describe('planTable', () => {
  it('when a unique key has a category and an identifier, then the identifier is rewritten, by the shape of its values', () => {
    const plan = planTable(
      deliveries,
      { event_name: facts(1), body_sha256: facts(2000, { hex64: true }) },
      DELIVERY,
    );
    expect(rulesOf(plan)).toEqual({
      webhook_id: { kind: 'delivery' },
      event_name: { kind: 'same' },
      body_sha256: { kind: 'digest' },
      received_at: { kind: 'time' },
      payload: { kind: 'same' },
    });
  });

  it('when integer keys and delivery references meet, then keys move by their range and references by delivery', () => {
    const plan = planTable(
      events,
      { id: facts(50, { min: '11', max: '60' }), position: facts(50, { min: '1', max: '50' }) },
      DELIVERY,
    );
    expect(rulesOf(plan)).toEqual({
      id: { kind: 'offset', stride: 50 },
      position: { kind: 'offset', stride: 50 },
      first_delivery: { kind: 'delivery' },
      webhook_id: { kind: 'delivery' },
    });
    expect(plan.columns.map((c) => c.name)).not.toContain('upper_key');
    expect(plan.sequences).toEqual([{ column: 'id', sequence: 'public.events_id_seq' }]);
  });

  it('when a unique index has no column it can rewrite, then it says which index', () => {
    const table: TableInfo = {
      name: 'tokens',
      columns: [column('webhook_id', 'bigint'), column('token', 'uuid')],
      uniqueIndexes: [{ name: 'tokens_token', columns: ['token'], hasExpressions: false }],
      foreignKeys: [],
    };
    expect(() => planTable(table, {}, DELIVERY)).toThrow(/tokens_token/);
  });
});

describe('parentsFirst', () => {
  it('when a table references another, then the referenced one comes first', () => {
    expect(parentsFirst([events, deliveries]).map((t) => t.name)).toEqual(['deliveries', 'events']);
  });
});

describe('the copy SQL', () => {
  const shape = {
    templateDeliveries: 120,
    firstDeliveryId: 1_000_001_000_000_000n,
    deliveries: 1_000,
    stepSeconds: 60,
  };

  it('when 1,000 deliveries come from a template of 120, then there are 9 copies, numbered in one digit', () => {
    expect(copyCount(shape)).toBe(9);
    expect(suffixWidth(shape)).toBe(1);
    expect(suffixWidth({ deliveries: 2_000_000, templateDeliveries: 2_000 })).toBe(3);
  });

  it('when a rule is turned into SQL, then it rewrites the value for copy k', () => {
    expect(ruleExpression('t.x', { kind: 'delivery' }, shape)).toBe('t.x + k * 120');
    expect(ruleExpression('t.x', { kind: 'delivery-text' }, shape)).toBe(
      '(t.x::bigint + k * 120)::text',
    );
    expect(ruleExpression('t.x', { kind: 'offset', stride: 7 }, shape)).toBe('t.x + k * 7');
    expect(ruleExpression('t.x', { kind: 'suffix' }, shape)).toBe("t.x || lpad(k::text, 1, '0')");
    expect(ruleExpression('t.x', { kind: 'time' }, shape)).toBe(
      "t.x + (k - 8) * interval '60.000 seconds'",
    );
  });

  it('when the statement is built, then it copies only rows whose delivery number stays below the total', () => {
    const plan = planTable(deliveries, { body_sha256: facts(120, { hex64: true }) }, DELIVERY);
    const sql = copyStatement(plan, shape);
    expect(sql).toContain('s."webhook_id" - 1000001000000000 + k * 120 < 1000');
    expect(sql).toContain('OVERRIDING SYSTEM VALUE');
    expect(sql).toContain('generate_series($1::bigint, $2::bigint)');
  });
});
