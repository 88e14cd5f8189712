import { sql, type RawBuilder } from 'kysely';
import type { TypedTableName } from '../events/data-contract.ts';
import type { TypedTableEntry, TypedTableSpec } from '../events/event-types.ts';
import type { Same } from '../events/record-reader.ts';
import type { TypedRows } from '../events/types.ts';
import type { Columns, TypedTables } from './tables.ts';

export { TYPED_TABLES } from '../events/event-types.ts';

/**
 * The SQL that writes typed rows and records conflicts, one set of CTEs per typed table, built
 * once per table of the registry (events/event-types.ts) so the typed tables behave the same.
 * Rows travel as JSON and become table rows with `jsonb_populate_record(NULL::<table>, …)`:
 * each JSON key is a column name, so a column added by a migration needs no change here.
 */
export type TypedTable = Pick<TypedTableSpec, 'table' | 'alias' | 'key' | 'businessKey'>;

/** The row a parser hands over for a `TypedRows` kind. */
type RowOfKind<K> = Extract<TypedRows, { kind: K }>['rows'][number];

/** A table's columns but those storage adds from the delivery (event_name where it is key). */
type Stored<E extends TypedTableEntry> = Omit<
  TypedTables[E['table']],
  'webhook_id' | 'received_at' | ('event_name' extends E['key'][number] ? 'event_name' : never)
>;

// Compile-time: the table storage writes for each registered entry (tables.ts, derived from the
// data contract) has exactly the columns of the rows its parser hands over for the entry's
// `TypedRows` kind, with the same types. (The migrated schema itself is checked against the
// registry by test/integration/receiver/event-types-schema.test.ts.)
type TableMatches = {
  [E in TypedTableEntry as E['table']]: Same<Columns<RowOfKind<E['kind']>>, Stored<E>>;
};
/** True when no table's check is false. */
type AllTrue<T> = false extends T[keyof T] ? false : true;
const tablesMatchContract: AllTrue<TableMatches> = true;
void tablesMatchContract;

// Every typed table of the data contract is registered (and only those).
const everyTableRegistered: Same<TypedTableEntry['table'], TypedTableName> = true;
void everyTableRegistered;

const raw = (text: string) => sql.raw(text);

/** `a.k1 = (b.r).k1 AND …` */
function keyMatch(t: TypedTable, left: string, right: string): RawBuilder<unknown> {
  return raw(t.key.map((k) => `${left}.${k} = (${right}.r).${k}`).join(' AND '));
}

/** The incoming rows: `position`, `record_index`, `event_name` and the row `r`. */
function incoming(t: TypedTable, rowsJson: string, onlyNewDeliveries: boolean) {
  return sql`${raw(`${t.alias}_in`)} AS (
    SELECT x.position, x.record_index, x.event_name,
      jsonb_populate_record(NULL::${raw(t.table)}, x.row) AS r
    FROM jsonb_to_recordset(${rowsJson}::jsonb) AS x(position int, webhook_id bigint,
      body_sha256 text, event_name text, record_index int, row jsonb)
    ${raw(onlyNewDeliveries ? 'JOIN delivery USING (webhook_id, body_sha256)' : '')}
  )`;
}

/**
 * Insert (`<alias>_ins`), then classify each incoming row against what is stored (`<alias>_seen`)
 * and record the conflicts (`<alias>_conflict`), all inside the one statement:
 * - the table as the statement sees it (rows committed before it began) is "stored";
 * - of several incoming rows with one key, the first by position is the one inserted;
 * - a row neither inserted nor matched by a stored row lost a race with a concurrent
 *   statement, whose row this statement cannot see: it is "unresolved", for a follow-up.
 */
export function typedRowCtes(t: TypedTable, rowsJson: string): RawBuilder<unknown> {
  const a = t.alias;
  const partition = t.key.map((k) => `(i.r).${k}`).join(', ');
  return sql`${incoming(t, rowsJson, true)},
  ${raw(`${a}_ins`)} AS (
    INSERT INTO ${raw(t.table)} SELECT (r).* FROM ${raw(`${a}_in`)} ORDER BY position
    ON CONFLICT DO NOTHING
    RETURNING ${raw(t.key.join(', '))}, webhook_id
  ),
  ${raw(`${a}_seen`)} AS (
    SELECT i.position, i.record_index, i.event_name, i.r,
      first_value(i.position) OVER k AS first_position,
      first_value(i.r) OVER k AS first_r,
      s.webhook_id AS stored_webhook_id,
      CASE WHEN s.webhook_id IS NOT NULL THEN to_jsonb(s) END AS stored_json,
      w.${raw(t.key[0] ?? '')} IS NOT NULL AS won
    FROM ${raw(`${a}_in`)} i
    LEFT JOIN ${raw(t.table)} s ON ${keyMatch(t, 's', 'i')}
    LEFT JOIN ${raw(`${a}_ins`)} w ON ${keyMatch(t, 'w', 'i')}
    WINDOW k AS (PARTITION BY ${raw(partition)} ORDER BY i.position)
  ),
  ${recordConflicts(
    t,
    sql`
      SELECT q.*, typed_row_differences(q.first_json, to_jsonb(q.r)) AS differences
      FROM (
        SELECT seen.*,
          CASE WHEN stored_webhook_id IS NOT NULL THEN stored_json
            WHEN won AND position <> first_position THEN to_jsonb(first_r) END AS first_json,
          coalesce(stored_webhook_id, (first_r).webhook_id) AS first_webhook_id
        FROM ${raw(`${a}_seen`)} seen
      ) q
      WHERE q.first_json IS NOT NULL`,
  )}`;
}

/** Per row: (webhook_id, inserted, unresolved, conflicts), for the per-delivery totals. */
export function typedRowTally(t: TypedTable): RawBuilder<unknown> {
  const a = t.alias;
  return sql`SELECT (r).webhook_id, (won AND position = first_position)::int,
      (stored_webhook_id IS NULL AND NOT won)::int, 0 FROM ${raw(`${a}_seen`)}
    UNION ALL SELECT webhook_id, 0, 0, 1 FROM ${raw(`${a}_conflict`)}`;
}

/**
 * The follow-up for rows that lost a race: the winner has committed by now, so a new statement
 * sees it. Each row is compared with the stored row of its key (unless that row is its own);
 * the conflicts table's unique key makes a repeat of this harmless.
 */
export function lateConflictCtes(t: TypedTable, rowsJson: string): RawBuilder<unknown> {
  const a = t.alias;
  return sql`${incoming(t, rowsJson, false)},
  ${recordConflicts(
    t,
    sql`
      SELECT i.*, s.webhook_id AS first_webhook_id,
        typed_row_differences(to_jsonb(s), to_jsonb(i.r)) AS differences
      FROM ${raw(`${a}_in`)} i
      JOIN ${raw(t.table)} s ON ${keyMatch(t, 's', 'i')}
      WHERE s.webhook_id <> (i.r).webhook_id`,
  )}`;
}

/**
 * `<alias>_conflict`: inserts a conflict for each candidate (columns event_name, r,
 * first_webhook_id, record_index, differences) whose differences are not null.
 */
function recordConflicts(t: TypedTable, candidates: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`${raw(`${t.alias}_conflict`)} AS (
    INSERT INTO conflicts (table_name, event_name, business_key, first_webhook_id, webhook_id,
      record_index, differences)
    SELECT ${sql.lit(t.table)}, c.event_name, (c.r).${raw(t.businessKey)}, c.first_webhook_id,
      (c.r).webhook_id, c.record_index, c.differences
    FROM (${candidates}) c
    WHERE c.differences IS NOT NULL
    ON CONFLICT DO NOTHING
    RETURNING id, webhook_id, event_name, business_key
  )`;
}
