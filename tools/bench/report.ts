import type { Ratio, ServerSummary, Spread, Summary } from './summary.ts';

/** The report on stdout: Markdown, so a run's figures can go into docs/benchmark.md as they are. */

export interface RunFacts {
  startedAt: Date;
  /** The receiver's commit, `+` when src/ or migrations/ had local changes. */
  commit: string;
  command: string;
  rounds: number;
  duration: number;
  connections: number;
  machine: { cpus: number; cpuModel: string; node: string; loadAverage: [number, number] };
  postgres: string;
  runtime: string;
  /** --profile: the receiver alone under node --cpu-prof. */
  profiled: boolean;
  /** --feed-endpoints: endpoints the receiver's feed hands every event to. */
  feedEndpoints: number;
  /** --database: the receiver's database is kept and already held this many deliveries. */
  keptDatabase?: { name: string; deliveries: number };
}

export function renderReport(facts: RunFacts, summary: Summary): string {
  const { machine } = facts;
  const kept = facts.keptDatabase
    ? ` The receiver stores into ${facts.keptDatabase.name}, which held ${count(facts.keptDatabase.deliveries)} deliveries at the start.`
    : '';
  const endpoints =
    facts.feedEndpoints > 0
      ? ` The receiver's feed hands every event to ${facts.feedEndpoints} endpoint(s), each a POST to a sink in the bench.`
      : '';
  const heading =
    `_${facts.startedAt.toISOString()}, receiver at ${facts.commit}: \`${facts.command}\`: ` +
    (facts.profiled
      ? `the receiver alone under node --cpu-prof (its figures include the profiler's cost), ` +
        `one round of ~${facts.duration} s at ${facts.connections} connections. `
      : `${facts.rounds} alternating rounds of ~${facts.duration} s per server at ` +
        `${facts.connections} connections; each figure is the median of the rounds (min-max). `) +
    `${machine.cpus} x ${machine.cpuModel}, Node ${machine.node}, load average ` +
    `${machine.loadAverage[0].toFixed(2)} at the start and ${machine.loadAverage[1].toFixed(2)} at ` +
    `the end; ${facts.postgres}. Every server runs as \`${facts.runtime}\` ` +
    `(npm run start:prod's runtime).${kept}${endpoints}_`;
  const servers = table(
    [
      'server',
      'deliveries/s',
      'p50 ms',
      'p99 ms',
      'CPU ms per delivery',
      'RSS after start',
      'peak RSS',
    ],
    summary.servers.map((s: ServerSummary) => [
      s.server,
      spreadOf(s.throughput, count),
      spreadOf(s.p50Ms, (v) => v.toFixed(2)),
      spreadOf(s.p99Ms, (v) => v.toFixed(2)),
      spreadOf(s.cpuMsPerDelivery, (v) => v.toFixed(3)),
      megabytes(s.startRssBytes),
      megabytes(s.peakRssBytes),
    ]),
  );
  const ratios = [
    ratioLine('Receiver / hand-written', summary.receiverOver.handWritten),
    ratioLine('Receiver / bare (the framework ceiling, for reference)', summary.receiverOver.bare),
  ].filter((line) => line !== '');
  const checks = table(
    ['check', 'target', 'measured', 'result'],
    summary.checks.map((c) => [c.label, c.target, c.actual, c.status.toUpperCase()]),
  );
  return [
    heading,
    servers,
    ratios.join('\n\n'),
    ...(facts.profiled
      ? []
      : [`**Targets**: ${summary.passed ? 'all met' : 'not all met'}`, checks]),
  ]
    .filter((part) => part !== '')
    .join('\n\n');
}

function ratioLine(label: string, ratio: Ratio | undefined): string {
  if (!ratio) return '';
  const x = (v: number) => `${v.toFixed(2)}x`;
  return (
    `**${label}**, round by round: throughput ${spreadOf(ratio.throughput, x)}, ` +
    `CPU per delivery ${spreadOf(ratio.cpuMsPerDelivery, x)}.`
  );
}

function spreadOf(spread: Spread, format: (value: number) => string): string {
  return spread.min === spread.max
    ? format(spread.median)
    : `${format(spread.median)} (${format(spread.min)}-${format(spread.max)})`;
}

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** A Markdown table, the first column left-aligned and the others right-aligned. */
function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}
