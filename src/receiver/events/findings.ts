import type { FieldProblem } from './types.ts';

/**
 * How many problems (or warnings) a delivery lists. A hostile but signed body can hold millions
 * of bad records; listing each made a 170 MB answer. The rest are counted, not listed.
 */
const MAX_LISTED = 100;

/** Problems or warnings found while reading a body: the first MAX_LISTED, and a count. */
export interface Findings {
  /** `make` runs only while the list has room, so the millionth finding costs a count only. */
  add(make: () => FieldProblem): void;
  readonly count: number;
  /** The listed findings, plus one closing entry saying how many were left out. */
  list(): FieldProblem[];
}

export function createFindings(noun: 'problems' | 'warnings', limit = MAX_LISTED): Findings {
  return new FindingList(noun, limit);
}

/** A class rather than closures: two are made for every delivery read. */
class FindingList implements Findings {
  private readonly listed: FieldProblem[] = [];
  private counted = 0;

  constructor(
    private readonly noun: 'problems' | 'warnings',
    private readonly limit: number,
  ) {}

  add(make: () => FieldProblem): void {
    this.counted += 1;
    if (this.listed.length < this.limit) this.listed.push(make());
  }

  get count(): number {
    return this.counted;
  }

  list(): FieldProblem[] {
    const { listed, counted } = this;
    if (counted === listed.length) return listed;
    const left = counted - listed.length;
    return [
      ...listed,
      { path: '', message: `${left} more ${this.noun} not listed (${counted} in all)` },
    ];
  }
}
