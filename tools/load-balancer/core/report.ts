import type { Check, Figures } from './judge.ts';

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

/** The figures the issue asks every scenario to print; retry figures only where the sender retries. */
export function standardFigures(f: Figures, withRetry: boolean): FigureRow[] {
  const rows: FigureRow[] = [
    ['sent (first tries, duplicates included)', f.sent],
    ['answered 200 (on some attempt)', f.answered200],
    ['first-try answers by status', histogram(f.firstTry)],
  ];
  if (withRetry) {
    rows.push(
      ['failed first try', f.failedFirstTry],
      ['retried (once, by the sender)', f.retried],
      ['retry answers by status', f.retried > 0 ? histogram(f.retry) : '-'],
      ['stored after retry', f.storedAfterRetry],
    );
  }
  rows.push(
    ['nginx re-sent to the other instance', f.nginxRetries],
    ['distinct deliveries (Webhookids)', f.distinct],
    ['rows stored (webhook_deliveries)', f.rowsStored],
    ['npp_payments / distinct TransactionIds', `${f.paymentsStored} / ${f.paymentsExpected}`],
    ['credit_rejections / distinct ids', `${f.rejectionsStored} / ${f.rejectionsExpected}`],
    ['duplicates absorbed (200 "already received")', f.duplicatesAbsorbed],
    ['stored although every answer was a failure', f.storedDespiteFailure],
    ['200 without a row', f.okWithoutRow],
    ['lost', f.lost],
  );
  return rows;
}

export function histogram(counts: Map<string, number>): string {
  return [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');
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
