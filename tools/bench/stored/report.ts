import { join } from 'node:path';
import type { MachineFacts } from '../core/machine.ts';
import type { BenchOptions } from '../core/options.ts';
import type { PostgresFacts } from '../core/postgres.ts';
import type { MemoryStats } from '../core/proc-stats.ts';
import {
  describeCode,
  describeHardware,
  int,
  ms,
  publish,
  table,
  targetsSection,
  times,
} from '../core/report.ts';
import type { Spread } from '../core/summary.ts';
import type { StoredCache } from './cache.ts';
import type { StorageFacts } from './database-facts.ts';
import { IDLE_SETTLE_SECONDS, type IdleWindow } from './idle.ts';
import type { StoredPhaseRecord } from './load-rounds.ts';
import type { SeedReport } from './seed.ts';
import type { DatabaseSummary, StoredSummary } from './summary.ts';

/**
 * The --stored results as markdown, in the style of the normal run's report: printed, written
 * with everything measured to .data/bench/stored.json, and put between the bench-stored markers
 * of docs/benchmark.md unless --no-docs.
 */

export interface StoredResult {
  startedAt: Date;
  finishedAt: Date;
  machine: MachineFacts;
  code: { commit: string; uncommittedChanges: boolean };
  postgres: PostgresFacts;
  options: BenchOptions;
  cache: StoredCache;
  /** When this run seeded the database: how (tables, keys, timings). */
  seed: SeedReport | undefined;
  largeAtStart: StorageFacts;
  records: StoredPhaseRecord[];
  idle: IdleWindow[];
  memory: Record<'empty' | 'large', MemoryStats>;
  summary: StoredSummary;
}

type ReportInput = Pick<
  StoredResult,
  'finishedAt' | 'machine' | 'code' | 'postgres' | 'options' | 'cache' | 'summary'
>;

const MARKERS = { start: '<!-- bench-stored:start -->', end: '<!-- bench-stored:end -->' };

export async function publishStored(
  result: StoredResult,
  dirs: { projectDir: string; benchDir: string },
  log: (line: string) => void,
): Promise<void> {
  const report = renderStored(result);
  await publish({
    projectDir: dirs.projectDir,
    jsonPath: join(dirs.benchDir, 'stored.json'),
    result,
    report,
    documents: result.options.writeDocs
      ? [{ file: 'docs/benchmark.md', markers: MARKERS, content: report }]
      : '--no-docs',
    log,
  });
}

const bytes = (value: number | undefined) => (value === undefined ? '-' : `${int(value)} B`);
const ratioOf = (large: number | undefined, empty: number | undefined) =>
  large === undefined || empty === undefined || empty === 0 ? undefined : large / empty;
const range = (s: Spread) => `${int(s.median)} (${int(s.min)}-${int(s.max)})`;
const pairs = (s: Spread) =>
  `**${times(s.median)}** (pairs ${s.min.toFixed(2)}-${s.max.toFixed(2)})`;

function describeStoredRun(input: ReportInput): string {
  const { machine, postgres, options, cache } = input;
  const pg = postgres.settings;
  const seeded = cache.reused
    ? `reused from an earlier run (seeded ${cache.marker.seededAt} at ${cache.marker.commit})`
    : `seeded in this run in ${cache.marker.seedSeconds} s`;
  return (
    describeCode(input.finishedAt, input.code) +
    `\`npm run bench -- --stored=${options.stored ?? 0}\`: the same receiver build on an empty ` +
    `database and on one holding ${int(cache.marker.deliveries)} deliveries (real rows: ` +
    `${int(cache.marker.templateDeliveries)} stored by the receiver, copied with every unique ` +
    `key new, vacuumed; ${(cache.sizeBytes / 1e9).toFixed(2)} GB; ${seeded}). ` +
    `${options.rounds} alternating rounds: throughput phases of ~${options.duration} s at ` +
    `${options.connections} connections, fixed-rate phases of ${options.latencyDuration} s at ` +
    `${int(options.rate)}/s (${options.pacing} pacing), idle windows of ${options.idleDuration} s ` +
    `after ${IDLE_SETTLE_SECONDS} s of settling. ${describeHardware(machine)}; Postgres ` +
    `${postgres.version} (synchronous_commit=${pg.synchronous_commit ?? '?'}, ` +
    `shared_buffers=${pg.shared_buffers ?? '?'}, autovacuum=${pg.autovacuum ?? '?'}), ` +
    `database pool ${options.poolMax}._`
  );
}

export function renderStored(input: ReportInput): string {
  const { summary, options } = input;
  const { empty, large, ratios } = summary;
  const cpu = (s: DatabaseSummary) =>
    `${ms(s.cpuMsPerDelivery.throughput.server)} + ${ms(s.cpuMsPerDelivery.throughput.postgres)} ms`;
  const row = (label: string, e: string, l: string, ratio: string, target = ''): string[] => [
    label,
    e,
    l,
    ratio,
    target,
  ];
  return [
    describeStoredRun(input),
    `**Empty vs large** (large / empty: throughput and p99 pair by pair, the median pair and ` +
      'the range; idle CPU over all windows)',
    table(
      ['', 'empty', 'large', 'large / empty', 'target'],
      [
        row(
          'deliveries held',
          `0 (emptied before each phase)`,
          `${int(large.deliveriesHeld.start)} at start, ${int(large.deliveriesHeld.end)} at end`,
          '',
        ),
        row(
          `throughput, deliveries/s (median, min-max)`,
          range(empty.throughput),
          range(large.throughput),
          pairs(ratios.throughput),
          '>= 0.95x',
        ),
        row(
          `p99 at ${int(options.rate)}/s`,
          `${ms(empty.latency.p99)} ms`,
          `${ms(large.latency.p99)} ms`,
          pairs(ratios.p99),
          '<= 1.20x',
        ),
        row(
          `p50 at ${int(options.rate)}/s`,
          `${ms(empty.latency.p50)} ms`,
          `${ms(large.latency.p50)} ms`,
          times(ratioOf(large.latency.p50, empty.latency.p50)),
        ),
        row(
          'idle: Postgres CPU, all its processes',
          `${ms(empty.idle.postgresMsPerSecond)} ms/s`,
          `${ms(large.idle.postgresMsPerSecond)} ms/s`,
          `**${times(ratios.idlePostgres.total)}** (pairs ${describePairs(ratios.idlePostgres.pairs)})`,
          '<= 1.20x',
        ),
        row(
          "idle: Postgres CPU, the database's backends",
          `${ms(empty.idle.backendsMsPerSecond)} ms/s`,
          `${ms(large.idle.backendsMsPerSecond)} ms/s`,
          times(ratioOf(large.idle.backendsMsPerSecond, empty.idle.backendsMsPerSecond)),
        ),
        row(
          'idle: receiver CPU',
          `${ms(empty.idle.receiverMsPerSecond)} ms/s`,
          `${ms(large.idle.receiverMsPerSecond)} ms/s`,
          times(ratios.idleReceiver.total),
        ),
        row(
          'CPU per delivery at full load (receiver + Postgres)',
          cpu(empty),
          cpu(large),
          times(
            ratioOf(
              large.cpuMsPerDelivery.throughput.total,
              empty.cpuMsPerDelivery.throughput.total,
            ),
          ),
        ),
        row(
          'WAL per delivery at full load',
          bytes(empty.walBytesPerDelivery.throughput),
          bytes(large.walBytesPerDelivery.throughput),
          times(
            ratioOf(large.walBytesPerDelivery.throughput, empty.walBytesPerDelivery.throughput),
          ),
        ),
        row(
          `WAL per delivery at ${int(options.rate)}/s`,
          bytes(empty.walBytesPerDelivery.atRate),
          bytes(large.walBytesPerDelivery.atRate),
          times(ratioOf(large.walBytesPerDelivery.atRate, empty.walBytesPerDelivery.atRate)),
        ),
        row(
          'stored bytes per delivery (tables and indexes)',
          `${bytes(empty.bytesPerDelivery.end)} (after a throughput phase)`,
          `${bytes(large.bytesPerDelivery.start)} at start, ${bytes(large.bytesPerDelivery.end)} at end`,
          '',
        ),
      ],
      1,
    ),
    `**Errors**: empty ${describeFailures(empty)}; large ${describeFailures(large)}. ` +
      `**Rows stored vs 200s**: empty ${int(empty.rowsStored ?? 0)} / ${int(empty.answered200)}, ` +
      `large ${int(large.rowsStored ?? 0)} / ${int(large.answered200)}` +
      (empty.rowsMatch && large.rowsMatch
        ? ', equal in every phase.'
        : ', NOT equal in every phase.'),
    noiseNote(summary),
    targetsSection(summary.checks),
  ].join('\n\n');
}

function noiseNote({ interference }: StoredSummary): string {
  const loaded = Math.round(interference.medianOtherPercent);
  const idle = Math.round(interference.idleMedianOtherPercent);
  const measured =
    `other processes on the machine used a median ${loaded}% of a core during the loaded ` +
    `phases and ${idle}% during the idle windows`;
  return interference.noisy
    ? `**Noisy run**: ${measured}. Treat the ratios as rough: the idle Postgres CPU and the WAL ` +
        "are the whole cluster's, so other work on this Postgres lands in them. Rerun on a quiet " +
        'machine.'
    : `Quiet run: ${measured}.`;
}

function describePairs(values: readonly number[]): string {
  return values.length === 0
    ? '-'
    : `${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)}`;
}

function describeFailures(s: DatabaseSummary): string {
  const { non2xx, errors, timeouts, reusedDeliveries } = s.failures;
  return `${non2xx} non-2xx, ${errors} socket errors, ${timeouts} timeouts, ${reusedDeliveries} sent twice`;
}
