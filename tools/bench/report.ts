import { join } from 'node:path';
import type { MachineFacts } from './core/machine.ts';
import type { BenchOptions, ServerName } from './core/options.ts';
import type { PostgresFacts } from './core/postgres.ts';
import {
  describeCode,
  describeHardware,
  int,
  ms,
  publish,
  RESULT,
  table,
  targetsSection,
  times,
} from './core/report.ts';
import type { PhaseRecord } from './core/rounds.ts';
import { describeRuntime } from './core/runtime.ts';
import { SERVER_NAMES } from './core/options.ts';
import type { MemoryRecord, ServerSummary, Summary } from './summary.ts';
import { TARGETS } from './summary.ts';

/**
 * The results as markdown (the full section for docs/benchmark.md, a short one for README.md),
 * printed, written as JSON, and put between the bench markers of both documents. A partial run
 * (--only) or --no-docs leaves the documents alone, so a quick experiment never replaces the
 * published figures.
 */

export interface BenchResult {
  startedAt: Date;
  finishedAt: Date;
  machine: MachineFacts;
  code: { commit: string; uncommittedChanges: boolean };
  postgres: PostgresFacts;
  options: BenchOptions;
  records: PhaseRecord[];
  memory: Partial<Record<ServerName, MemoryRecord>>;
  summary: Summary;
}

const MARKERS = { start: '<!-- bench:start -->', end: '<!-- bench:end -->' };

export async function publishResult(
  result: BenchResult,
  dirs: { projectDir: string; benchDir: string },
  log: (line: string) => void,
): Promise<void> {
  const full = renderFull(result);
  const complete = SERVER_NAMES.every((name) => result.options.only.includes(name));
  await publish({
    projectDir: dirs.projectDir,
    jsonPath: join(dirs.benchDir, 'latest.json'),
    result,
    report: full,
    documents: !result.options.writeDocs
      ? '--no-docs'
      : !complete
        ? 'not all servers measured'
        : [
            { file: 'docs/benchmark.md', markers: MARKERS, content: full },
            { file: 'README.md', markers: MARKERS, content: renderCompact(result) },
          ],
    log,
  });
}

const mb = (bytes: number | undefined) => (bytes === undefined ? '-' : (bytes / 1e6).toFixed(1));

function describeRun(input: BenchResult): string {
  const { machine, postgres, options } = input;
  const pg = postgres.settings;
  return (
    describeCode(input.finishedAt, input.code) +
    `\`npm run bench\` with ${options.rounds} alternating ` +
    `rounds; throughput phases of ~${options.duration} s at ${options.connections} connections; ` +
    `latency phases of ${options.latencyDuration} s at ${int(options.rate)}/s (${options.pacing} ` +
    `pacing); medians over rounds. ${describeHardware(machine)}; before the run the ` +
    `machine was ${Math.round(machine.busyPercentBeforeRun)}% busy (of ${machine.cpus * 100}%), ` +
    `load average ${machine.loadAverageAtStart.toFixed(2)}; Postgres ${postgres.version} ` +
    `(synchronous_commit=${pg.synchronous_commit ?? '?'}, fsync=${pg.fsync ?? '?'}), ` +
    `database pool ${options.poolMax} per server._`
  );
}

function throughputChart(servers: readonly ServerSummary[], width = 40): string {
  const top = Math.max(...servers.map((s) => s.throughput.median), 1);
  const label = Math.max(...servers.map((s) => s.server.length));
  const lines = servers.map((s) => {
    const filled = Math.round((s.throughput.median / top) * width);
    const bar = '#'.repeat(filled) + '.'.repeat(width - filled);
    return `${s.server.padEnd(label)}  ${bar}  ${int(s.throughput.median)}/s`;
  });
  return ['```text', ...lines, '```'].join('\n');
}

function renderFull(input: BenchResult): string {
  const { summary, options } = input;
  const s = summary.servers;
  const sections = [
    describeRun(input),
    `**Throughput** (deliveries answered 200 per second, closed loop, ${options.connections} ` +
      `connections; CPU in % of one core, ${input.machine.cpus * 100}% = every core busy)`,
    table(
      ['server', 'median', 'min', 'max', 'CPU: server', 'Postgres', 'load generator', 'other'],
      s.map((x) => [
        x.server,
        int(x.throughput.median),
        int(x.throughput.min),
        int(x.throughput.max),
        `${Math.round(x.cpuPercent.server)}%`,
        `${Math.round(x.cpuPercent.postgres)}%`,
        `${Math.round(x.cpuPercent.generator)}%`,
        `${Math.max(0, Math.round(x.cpuPercent.other))}%`,
      ]),
    ),
    throughputChart(s),
    `Receiver / hand-written: **${times(summary.ratios.receiverOverHandWritten)}** ` +
      `(target >= ${TARGETS.overHandWritten.toFixed(1)}x, aim ${TARGETS.overHandWrittenAim}x). ` +
      `Receiver / bare: ${times(summary.ratios.receiverOverBare)} (the framework's ceiling, ` +
      'for reference).',
    `**CPU per delivery** (ms of CPU per 200: all CPU of the phases over all their 200s; what a ` +
      'delivery costs, whoever else shares the machine. Postgres backends: the processes ' +
      "connected to the server's database; background: WAL writer, checkpointer, autovacuum, " +
      `which other databases' work on the same Postgres also uses)`,
    table(
      [
        'server',
        'server process',
        'Postgres backends',
        'Postgres background',
        'total',
        `total at ${int(options.rate)}/s`,
      ],
      s.map(({ server, cpuMsPerDelivery: { throughput: cpu, atRate } }) => [
        server,
        ms(cpu.server),
        ms(cpu.postgresBackends),
        ms(cpu.postgresBackground),
        ms(cpu.total),
        ms(atRate.total),
      ]),
    ),
    `**Latency at ${int(options.rate)} deliveries/s** (ms, ${
      options.pacing === 'smooth'
        ? "from each request's scheduled send time, evenly spaced sends"
        : "from each request's send, autocannon's per-second bursts"
    }; median of the rounds' percentiles)`,
    table(
      ['server', 'p50', 'p99', 'max', 'achieved rate'],
      s.map((x) => [
        x.server,
        ms(x.latency.p50),
        ms(x.latency.p99),
        ms(x.latency.max),
        `${int(x.latency.achievedPerSecond)}/s`,
      ]),
    ),
    '**Errors** (all measured phases)',
    table(
      ['server', 'non-2xx', 'socket errors', 'timeouts', 'deliveries sent twice'],
      s.map((x) => [
        x.server,
        int(x.failures.non2xx),
        int(x.failures.errors),
        int(x.failures.timeouts),
        int(x.failures.reusedDeliveries),
      ]),
    ),
    '**Memory** (MB = 10^6 bytes; each server runs as compiled JavaScript)',
    table(
      ['server', 'RSS after start', 'peak RSS (VmHWM)'],
      s.map((x) => [x.server, mb(x.memory?.startRssBytes), mb(x.memory?.peakRssBytes)]),
    ),
    '**Stored rows vs 200s** (counted in the database after every phase)',
    table(
      ['server', '200s answered', 'rows stored', 'equal in every phase'],
      s
        .filter((x) => x.rowsMatch !== undefined)
        .map((x) => [
          x.server,
          int(x.answered200),
          int(x.rowsStored ?? 0),
          x.rowsMatch ? 'yes' : 'NO',
        ]),
    ),
    runtimeSection(input),
    noiseNote(summary),
    targetsSection(summary.checks),
  ];
  return sections.join('\n\n');
}

function runtimeSection({ summary, options }: BenchResult): string {
  const head =
    summary.runtimeDifferences.length > 0
      ? '**Runtime: NOT LIKE FOR LIKE** (run with --allow-unequal-runtime; the ratios compare ' +
        `different runtimes: ${summary.runtimeDifferences.join('; ')})`
      : `**Runtime** (\`--runtime=${options.runtime}\`, the same for every server)`;
  return [
    head,
    table(
      ['server', 'Node flags', 'runtime environment'],
      summary.servers.map((x) => {
        const runtime = x.runtime ? describeRuntime(x.runtime) : { flags: '-', env: '-' };
        return [x.server, `\`${runtime.flags}\``, `\`${runtime.env}\``];
      }),
      3,
    ),
  ].join('\n\n');
}

function noiseNote(summary: Summary): string {
  const other = Math.round(summary.interference.medianOtherPercent);
  return summary.interference.noisy
    ? `**Noisy run**: other processes on the machine used a median ${other}% of a core during ` +
        'the measured phases (column "other" above). The servers shared the CPUs with them, ' +
        'unevenly: treat the ratios as rough (CPU per delivery is steadier), and rerun on a quiet ' +
        'machine or with --wait-quiet.'
    : `Quiet run: other processes used a median ${other}% of a core during the measured phases.`;
}

/** The few lines README.md carries; the full tables live in docs/benchmark.md. */
function renderCompact(input: BenchResult): string {
  const { summary, options } = input;
  return [
    describeRun(input),
    table(
      [
        'server',
        `deliveries/s (${options.connections} conn.)`,
        `p99 at ${int(options.rate)}/s`,
        'peak RSS',
        'errors',
      ],
      summary.servers.map((x) => [
        x.server,
        int(x.throughput.median),
        `${ms(x.latency.p99)} ms`,
        `${mb(x.memory?.peakRssBytes)} MB`,
        int(x.failures.non2xx + x.failures.errors + x.failures.timeouts),
      ]),
    ),
    (summary.interference.noisy ? 'Noisy run (the machine was shared). ' : '') +
      `Receiver / hand-written ${times(summary.ratios.receiverOverHandWritten)}, receiver / bare ` +
      `${times(summary.ratios.receiverOverBare)} (the framework's ceiling). CPU per delivery ` +
      `(server + Postgres): ${summary.servers
        .map((x) => `${x.server} ${ms(x.cpuMsPerDelivery.throughput.total)} ms`)
        .join(', ')}. Targets ${summary.passed ? 'met' : 'not all met'}: ` +
      summary.checks.map((c) => `${c.label} ${RESULT[c.status]}`).join('; ') +
      '. Method and full tables: [docs/benchmark.md](docs/benchmark.md).',
  ].join('\n\n');
}
