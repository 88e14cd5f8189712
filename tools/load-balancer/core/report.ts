/** One line of a scenario's verdict. */
export interface Check {
  name: string;
  ok: boolean;
  detail?: string;
}

export function check(name: string, ok: boolean, detail?: string): Check {
  return detail === undefined ? { name, ok } : { name, ok, detail };
}

export type FigureRow = readonly [label: string, value: string | number];

export interface ScenarioResult {
  title: string;
  figures: FigureRow[];
  checks: Check[];
  seconds: number;
}

export function passed(result: ScenarioResult): boolean {
  return result.checks.every((c) => c.ok);
}

/** Counts by key ("200: 927, 500: 754"), keys in order. */
export function histogram(counts: Map<string, number>): string {
  return [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');
}

/** Adds one to `key`'s count. */
export function tally(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

export function printResult(result: ScenarioResult, out: (line: string) => void): void {
  out('');
  out(`== ${result.title} (${result.seconds.toFixed(1)} s)`);
  const width = Math.max(...result.figures.map(([label]) => label.length));
  for (const [label, value] of result.figures) out(`   ${label.padEnd(width)}  ${value}`);
  for (const c of result.checks) {
    out(`   ${c.ok ? 'PASS' : 'FAIL'}  ${c.name}${c.detail !== undefined ? ` (${c.detail})` : ''}`);
  }
  out(`   => ${passed(result) ? 'PASS' : 'FAIL'}`);
}
