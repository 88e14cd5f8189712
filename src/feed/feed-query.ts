import pg from 'pg';

/**
 * The feed reads through pg directly (not Kysely) for one reason: rendering a typed row needs
 * each column's type (numeric, Sydney wall-clock timestamp, jsonb), which pg reports per field.
 * Numbers, timestamps and json arrive as their text, so nothing is rounded or shifted.
 */
export interface FeedQueryable {
  query(config: pg.QueryConfig): Promise<pg.QueryResult>;
}

export const OID = {
  int8: 20,
  json: 114,
  timestamp: 1114,
  timestamptz: 1184,
  numeric: 1700,
  jsonb: 3802,
} as const;

const KEEP_TEXT = new Set<number>(Object.values(OID));
const keepText = (value: string) => value;

const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    KEEP_TEXT.has(oid)
      ? keepText
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export function feedQuery<R extends pg.QueryResultRow>(
  db: FeedQueryable,
  text: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<R>> {
  return db.query({ text, values, types }) as Promise<pg.QueryResult<R>>;
}
