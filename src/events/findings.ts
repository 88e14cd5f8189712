import type { FieldProblem } from './types.ts';

/**
 * How many problems (or warnings) a delivery lists. A hostile but signed body can hold millions
 * of bad records; listing each made a 170 MB answer. The rest are counted, not listed.
 */
export const MAX_LISTED = 100;

/** Problems or warnings found while reading a body: the first MAX_LISTED, and a count. */
export interface Findings {
  /** `make` runs only while the list has room, so the millionth finding costs a count only. */
  add(make: () => FieldProblem): void;
  readonly count: number;
  /** The listed findings, plus one closing entry saying how many were left out. */
  list(): FieldProblem[];
}

export function createFindings(noun: 'problems' | 'warnings', limit = MAX_LISTED): Findings {
  const listed: FieldProblem[] = [];
  let count = 0;
  return {
    add(make) {
      count += 1;
      if (listed.length < limit) listed.push(make());
    },
    get count() {
      return count;
    },
    list() {
      if (count === listed.length) return listed;
      const left = count - listed.length;
      return [
        ...listed,
        { path: '', message: `${left} more ${noun} not listed (${count} in all)` },
      ];
    },
  };
}

/** A list that may be longer than MAX_LISTED (e.g. from elsewhere), capped the same way. */
export function capFindings(items: readonly FieldProblem[], noun: 'problems' | 'warnings') {
  if (items.length <= MAX_LISTED) return [...items];
  const findings = createFindings(noun);
  for (const item of items) findings.add(() => item);
  return findings.list();
}
