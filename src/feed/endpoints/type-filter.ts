import { sql, type RawBuilder } from 'kysely';

/**
 * An endpoint's event-type filter (docs/feed.md, "Endpoints"): a list of exact types
 * (`payment.received`), prefixes (`payment.*`, `quarantine.*`: every type that starts with
 * `payment.`) and `*` (every event). Each entry must name at least one type the feed knows
 * today, so a typo (`payments.*`) is refused when the endpoint is added, not discovered as
 * silence later; a prefix also takes the types added to that family later.
 */

const ENTRY = /^(?:\*|[a-z][a-z_]*(?:\.[a-z][a-z_]*)*(?:\.\*)?)$/;

/** True when `type` is selected by `filter`. */
export function selectsType(filter: readonly string[], type: string): boolean {
  return filter.some((entry) =>
    entry === '*'
      ? true
      : entry.endsWith('.*')
        ? type.startsWith(entry.slice(0, -1))
        : entry === type,
  );
}

/**
 * Reads a filter as given on a command line (`payment.*,quarantine.opened`): the entries, or the
 * problems with it (unknown types named, malformed entries).
 */
export function parseTypeFilter(
  text: string,
  knownTypes: readonly string[],
): { types: string[] } | { problems: string[] } {
  const entries = [
    ...new Set(
      text
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    ),
  ];
  if (entries.length === 0) return { problems: ['name at least one event type, a prefix.* or *'] };
  const problems = entries.flatMap((entry) => {
    if (!ENTRY.test(entry)) return [`"${entry}" is not an event type, a prefix.* or *`];
    if (!knownTypes.some((type) => selectsType([entry], type))) {
      return [`"${entry}" selects no event type (known: ${knownTypes.join(', ')})`];
    }
    return [];
  });
  return problems.length > 0 ? { problems } : { types: entries };
}

/**
 * The filter as an SQL condition on `column` (a feed_events.type expression), for the fan-out:
 * exact types by equality, prefixes by `starts_with` (no LIKE: `_` in a type is not a wildcard).
 */
export function typeFilterSql(filter: readonly string[], column: RawBuilder<unknown>) {
  if (filter.includes('*')) return sql<boolean>`true`;
  const exact = filter.filter((entry) => !entry.endsWith('.*'));
  const prefixes = filter
    .filter((entry) => entry.endsWith('.*'))
    .map((entry) => entry.slice(0, -1));
  return sql<boolean>`(${column} = ANY(${exact}::text[]) OR EXISTS (
    SELECT 1 FROM unnest(${prefixes}::text[]) AS p(prefix) WHERE starts_with(${column}, p.prefix)))`;
}
