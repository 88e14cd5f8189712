import type { ServerName } from './options.ts';
import { answered200, cpuMsPerDelivery, type RoundRecord } from './rounds.ts';

/**
 * What the rounds come to: per server, the spread (min, median, max) of each figure over the
 * rounds; the receiver against each other server round by round (the two measured side by side,
 * minutes apart), spread the same way; and the targets from the issue.
 */

export interface Spread {
  min: number;
  median: number;
  max: number;
}

export interface ServerSummary {
  server: ServerName;
  /** Deliveries answered 2xx per second, at --connections. */
  throughput: Spread;
  p50Ms: Spread;
  p99Ms: Spread;
  /** Milliseconds of the server process's CPU per delivery. */
  cpuMsPerDelivery: Spread;
  /** VmRSS right after it answered ready. */
  startRssBytes: number;
  /** VmHWM at the end: the most it ever held resident. */
  peakRssBytes: number;
  /** Non-2xx, socket errors, timeouts and deliveries sent twice, over every round. */
  failures: number;
  answered200: number;
  /** Storing servers: the rows their rounds added, and whether every round's equal its 200s. */
  rows?: { stored: number; equalInEveryRound: boolean };
}

/** Receiver over another server, round by round. */
export interface Ratio {
  throughput: Spread;
  cpuMsPerDelivery: Spread;
}

interface Check {
  label: string;
  target: string;
  actual: string;
  status: 'pass' | 'fail' | 'n/a';
}

export interface Summary {
  servers: ServerSummary[];
  /** Over bare: the framework's ceiling, for reference, not a target. */
  receiverOver: { handWritten?: Ratio; bare?: Ratio };
  checks: Check[];
  passed: boolean;
}

const TARGETS = {
  /** Receiver / hand-written throughput (median of the rounds): must reach this... */
  overHandWritten: 1.0,
  /** ...and should reach this (reported, does not fail). */
  overHandWrittenAim: 1.2,
  peakRssBytes: 150e6,
} as const;

export function summarise(
  records: readonly RoundRecord[],
  startRss: Partial<Record<ServerName, number>>,
): Summary {
  const names = [...new Set(records.map((record) => record.server))];
  const servers = names.map((name) =>
    summariseServer(
      name,
      records.filter((record) => record.server === name),
      startRss[name] ?? 0,
    ),
  );
  const handWritten = ratio(records, 'hand-written');
  const bare = ratio(records, 'bare');
  const receiverOver = { ...(handWritten && { handWritten }), ...(bare && { bare }) };
  const checks = buildChecks(servers, receiverOver);
  return { servers, receiverOver, checks, passed: checks.every((c) => c.status !== 'fail') };
}

function summariseServer(
  server: ServerName,
  records: readonly RoundRecord[],
  startRssBytes: number,
): ServerSummary {
  const over = (pick: (record: RoundRecord) => number) => spread(records.map(pick));
  const sum = (pick: (record: RoundRecord) => number) =>
    records.reduce((total, record) => total + pick(record), 0);
  const storing = records.filter((record) => record.rowsStored !== undefined);
  return {
    server,
    throughput: over((r) => r.load.okPerSecond),
    p50Ms: over((r) => r.load.latencyMs.p50),
    p99Ms: over((r) => r.load.latencyMs.p99),
    cpuMsPerDelivery: over((r) => cpuMsPerDelivery(r.load)),
    startRssBytes,
    peakRssBytes: Math.max(0, ...records.map((r) => r.peakRssBytes)),
    failures: sum(({ load }) => load.non2xx + load.errors + load.timeouts + load.reusedDeliveries),
    answered200: sum((r) => answered200(r.load)),
    ...(storing.length > 0 && {
      rows: {
        stored: sum((r) => r.rowsStored ?? 0),
        equalInEveryRound: storing.every((r) => r.rowsStored === answered200(r.load)),
      },
    }),
  };
}

/** The receiver over `other` in each round both ran; undefined when they never did. */
function ratio(records: readonly RoundRecord[], other: ServerName): Ratio | undefined {
  const pairs = records.flatMap((receiver) => {
    const peer = records.find((r) => r.server === other && r.round === receiver.round);
    return receiver.server === 'receiver' && peer ? [{ receiver, peer }] : [];
  });
  if (pairs.length === 0) return undefined;
  const of = (a: number, b: number) => (b > 0 ? a / b : Number.NaN);
  return {
    throughput: spread(pairs.map((p) => of(p.receiver.load.okPerSecond, p.peer.load.okPerSecond))),
    cpuMsPerDelivery: spread(
      pairs.map((p) => of(cpuMsPerDelivery(p.receiver.load), cpuMsPerDelivery(p.peer.load))),
    ),
  };
}

function buildChecks(servers: readonly ServerSummary[], over: Summary['receiverOver']): Check[] {
  const receiver = servers.find((s) => s.server === 'receiver');
  const ratio = over.handWritten?.throughput.median;
  const aim = TARGETS.overHandWrittenAim;
  const peak = receiver?.peakRssBytes;
  const failed = servers.filter((s) => s.failures > 0);
  const storing = servers.filter((s) => s.rows !== undefined);
  return [
    {
      label: 'receiver / hand-written throughput',
      target: `>= ${TARGETS.overHandWritten.toFixed(2)}x (aim ${aim.toFixed(2)}x)`,
      actual:
        ratio === undefined
          ? 'not measured'
          : `${ratio.toFixed(2)}x (aim ${ratio >= aim ? 'reached' : 'not reached'})`,
      status: ratio === undefined ? 'n/a' : ratio >= TARGETS.overHandWritten ? 'pass' : 'fail',
    },
    {
      label: 'receiver peak memory (VmHWM)',
      target: `< ${TARGETS.peakRssBytes / 1e6} MB`,
      actual: peak === undefined ? 'not measured' : `${(peak / 1e6).toFixed(1)} MB`,
      status: peak === undefined ? 'n/a' : peak < TARGETS.peakRssBytes ? 'pass' : 'fail',
    },
    {
      label: 'errors, timeouts and non-2xx (all servers)',
      target: '0',
      actual:
        failed.length === 0 ? '0' : failed.map((s) => `${s.server}: ${s.failures}`).join(', '),
      status: failed.length === 0 ? 'pass' : 'fail',
    },
    {
      label: 'rows stored = 200s answered, every round',
      target: 'equal',
      actual:
        storing.length === 0
          ? 'not measured'
          : storing.map((s) => `${s.server}: ${s.rows?.stored}/${s.answered200}`).join(', '),
      status:
        storing.length === 0
          ? 'n/a'
          : storing.every((s) => s.rows?.equalInEveryRound)
            ? 'pass'
            : 'fail',
    },
  ];
}

function spread(values: readonly number[]): Spread {
  return { min: Math.min(...values), median: median(values), max: Math.max(...values) };
}

/** Median of unsorted values (mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
