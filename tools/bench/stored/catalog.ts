import type pg from 'pg';

/**
 * What the seeding needs to know about the receiver's tables, read from Postgres's catalog
 * rather than written down here: the schema changes with every migration, and a list in the
 * harness would silently copy a new column as NULL or miss a new unique key.
 */

export interface ColumnInfo {
  name: string;
  /** The type's name as Postgres spells it (`bigint`, `text`, `timestamp with time zone`). */
  type: string;
  /** GENERATED ALWAYS AS (...) STORED: computed by Postgres, never inserted. */
  generated: boolean;
  /** An identity column (GENERATED ... AS IDENTITY) or a serial: its sequence must follow. */
  sequence: string | undefined;
}

export interface UniqueIndex {
  name: string;
  /** Plain columns of the key (an expression in the key is left out). */
  columns: string[];
  /** The key has expressions too: its plain columns alone must make copies differ. */
  hasExpressions: boolean;
}

export interface ForeignKey {
  column: string;
  referencedTable: string;
  referencedColumn: string;
}

export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  uniqueIndexes: UniqueIndex[];
  /** Single-column foreign keys only; the receiver's schema has no other kind. */
  foreignKeys: ForeignKey[];
}

/** The tables of the public schema other than kysely's migration bookkeeping. */
export async function readTables(client: pg.Client): Promise<TableInfo[]> {
  const tables = await client.query<{ oid: number; name: string }>(
    `SELECT c.oid, c.relname AS name FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname NOT LIKE 'kysely\\_%'
      ORDER BY c.relname`,
  );
  const result: TableInfo[] = [];
  for (const table of tables.rows) {
    result.push({
      name: table.name,
      columns: await readColumns(client, table.oid, table.name),
      uniqueIndexes: await readUniqueIndexes(client, table.oid),
      foreignKeys: await readForeignKeys(client, table.oid),
    });
  }
  return result;
}

async function readColumns(client: pg.Client, oid: number, table: string): Promise<ColumnInfo[]> {
  const rows = await client.query<{ name: string; type: string; generated: boolean }>(
    `SELECT attname AS name, format_type(atttypid, atttypmod) AS type,
            attgenerated <> '' AS generated
       FROM pg_attribute WHERE attrelid = $1 AND attnum > 0 AND NOT attisdropped
      ORDER BY attnum`,
    [oid],
  );
  const columns: ColumnInfo[] = [];
  for (const row of rows.rows) {
    const sequence = await client.query<{ sequence: string | null }>(
      'SELECT pg_get_serial_sequence($1, $2) AS sequence',
      [quoteIdentifier(table), row.name],
    );
    columns.push({ ...row, sequence: sequence.rows[0]?.sequence ?? undefined });
  }
  return columns;
}

/**
 * Unique indexes and exclusion constraints (the deduplication key is one: equal keys excluded
 * over a hash index); the columns of an expression (`event_name || ':' || body_sha256`) are
 * those it reads, from pg_depend, after the plain key columns.
 */
async function readUniqueIndexes(client: pg.Client, oid: number): Promise<UniqueIndex[]> {
  const rows = await client.query<{ name: string; columns: string[]; has_expressions: boolean }>(
    `SELECT i.indexrelid::regclass::text AS name,
            array(SELECT a.attname FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
                    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                   ORDER BY k.n)::text[]
            || array(SELECT a.attname FROM pg_depend d
                       JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
                      WHERE d.classid = 'pg_class'::regclass AND d.objid = i.indexrelid
                        AND d.refclassid = 'pg_class'::regclass AND d.refobjid = i.indrelid
                        AND d.refobjsubid > 0 AND NOT d.refobjsubid = ANY (i.indkey::int2[])
                      ORDER BY a.attnum)::text[] AS columns,
            0 = ANY (i.indkey::int2[]) AS has_expressions
       FROM pg_index i WHERE i.indrelid = $1 AND (i.indisunique OR i.indisexclusion)
      ORDER BY 1`,
    [oid],
  );
  return rows.rows.map((row) => ({
    name: row.name,
    columns: row.columns,
    hasExpressions: row.has_expressions,
  }));
}

async function readForeignKeys(client: pg.Client, oid: number): Promise<ForeignKey[]> {
  const rows = await client.query<ForeignKey>(
    `SELECT a.attname AS "column", c.confrelid::regclass::text AS "referencedTable",
            fa.attname AS "referencedColumn"
       FROM pg_constraint c
       JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
       JOIN pg_attribute fa ON fa.attrelid = c.confrelid AND fa.attnum = c.confkey[1]
      WHERE c.conrelid = $1 AND c.contype = 'f' AND cardinality(c.conkey) = 1
      ORDER BY 1`,
    [oid],
  );
  return rows.rows;
}

/** An identifier as SQL text: always quoted, so no name can break the statement. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A string as an SQL literal. */
export function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
