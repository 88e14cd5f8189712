import {
  failureCount,
  median,
  NOISY_OTHER_PERCENT,
  otherPercent,
  percentOfCore,
  spread,
  summarisePhases,
  type Check,
  type PhasesSummary,
  type Spread,
} from '../core/summary.ts';
import type { StorageFacts } from './database-facts.ts';
import type { IdleWindow } from './idle.ts';
import type { StoredDatabase, StoredPhaseRecord } from './load-rounds.ts';

/**
 * The --stored results: each database's figures, and the ratios large / empty that the issue
 * "Cost that does not grow with what is stored" sets targets for. Throughput and p99 ratios are
 * taken pair by pair (the two phases of a round ran back to back on the same deliveries) and
 * the median pair reported with the range; the idle ratio is the total CPU of all large windows
 * over that of all empty ones, because one idle window's CPU is a few hundred milliseconds and
 * a ratio of two such numbers moves a lot from pair to pair.
 */

const STORED_TARGETS = {
  /** Throughput on the large database at least this share of the empty one's. */
  throughput: 0.95,
  /** p99 at the fixed rate at most this multiple of the empty one's. */
  p99: 1.2,
  /** An idle receiver's Postgres CPU at most this multiple of the empty one's. */
  idlePostgres: 1.2,
} as const;

export interface DatabaseSummary extends PhasesSummary {
  /** WAL written per delivery stored, all phases of a kind pooled; undefined if none stored. */
  walBytesPerDelivery: { throughput: number | undefined; atRate: number | undefined };
  /**
   * Size on disk of the delivery tables per delivery they hold: for the empty database after
   * each throughput phase (median), for the large one at the start and at the end.
   */
  bytesPerDelivery: { start: number | undefined; end: number | undefined };
  /** Deliveries held at the start and at the end of the loaded rounds. */
  deliveriesHeld: { start: number; end: number };
  /** Idle windows: CPU milliseconds per second of window. */
  idle: {
    seconds: number;
    receiverMsPerSecond: number;
    postgresMsPerSecond: number;
    backendsMsPerSecond: number;
  };
}

export interface StoredSummary {
  empty: DatabaseSummary;
  large: DatabaseSummary;
  ratios: {
    throughput: Spread;
    p99: Spread;
    /** Totals over all windows (see above), and each pair's for the range. */
    idlePostgres: { total: number; pairs: number[] };
    idleReceiver: { total: number; pairs: number[] };
  };
  checks: Check[];
  passed: boolean;
  /**
   * CPU other processes used (percent of one core, median over phases or windows): the loaded
   * phases' "other", and in the idle windows everything but the receiver and Postgres. On a
   * shared machine that also uses this Postgres, the idle Postgres figure carries their work.
   */
  interference: { medianOtherPercent: number; idleMedianOtherPercent: number; noisy: boolean };
}

interface StoredSummaryInput {
  records: readonly StoredPhaseRecord[];
  idle: readonly IdleWindow[];
  /** The large database as the run found it, before any load. */
  largeAtStart: StorageFacts;
  rate: number;
}

export function summariseStored(input: StoredSummaryInput): StoredSummary {
  const empty = summariseDatabase('empty', input);
  const large = summariseDatabase('large', input);
  const pairs = (phase: 'throughput' | 'latency', pick: (r: StoredPhaseRecord) => number) =>
    spread(
      pairUp(input.records.filter((r) => r.phase === phase)).map(([e, l]) => pick(l) / pick(e)),
    );
  const idleTotal = (database: StoredDatabase, pick: (w: IdleWindow) => number) =>
    input.idle.filter((w) => w.database === database).reduce((sum, w) => sum + pick(w), 0);
  const idleRatio = (pick: (w: IdleWindow) => number) => ({
    total: idleTotal('large', pick) / idleTotal('empty', pick),
    pairs: pairUp(input.idle).map(([e, l]) => pick(l) / pick(e)),
  });
  const ratios = {
    throughput: pairs('throughput', (r) => r.load.okPerSecond),
    p99: pairs('latency', (r) => r.load.latencyMs.p99),
    idlePostgres: idleRatio((w) => w.cpu.postgres),
    idleReceiver: idleRatio((w) => w.cpu.receiver),
  };
  const checks = buildChecks(input.rate, empty, large, ratios);
  const medianOtherPercent = median(input.records.map(otherPercent));
  const idleMedianOtherPercent = median(
    input.idle.map((w) =>
      percentOfCore(Math.max(0, w.cpu.machine - w.cpu.receiver - w.cpu.postgres), w.seconds),
    ),
  );
  return {
    empty,
    large,
    ratios,
    checks,
    passed: checks.every((check) => check.status !== 'fail'),
    interference: {
      medianOtherPercent,
      idleMedianOtherPercent,
      noisy: Math.max(medianOtherPercent, idleMedianOtherPercent) > NOISY_OTHER_PERCENT,
    },
  };
}

/** The (empty, large) records or windows of each round, matched by round. */
function pairUp<T extends { database: StoredDatabase; round: number }>(
  items: readonly T[],
): [T, T][] {
  return items.flatMap((item) => {
    if (item.database !== 'empty') return [];
    const partner = items.find((i) => i.database === 'large' && i.round === item.round);
    return partner ? [[item, partner] as [T, T]] : [];
  });
}

function summariseDatabase(database: StoredDatabase, input: StoredSummaryInput): DatabaseSummary {
  const records = input.records.filter((r) => r.database === database);
  const throughput = records.filter((r) => r.phase === 'throughput');
  const sum = (list: readonly StoredPhaseRecord[], pick: (r: StoredPhaseRecord) => number) =>
    list.reduce((total, r) => total + pick(r), 0);
  const walPerDelivery = (list: readonly StoredPhaseRecord[]) => {
    const stored = sum(list, (r) => r.rowsStored ?? 0);
    return stored > 0 ? sum(list, (r) => r.walBytes) / stored : undefined;
  };
  const bytesPer = (facts: StorageFacts | undefined) =>
    facts && facts.deliveries > 0 ? facts.bytes / facts.deliveries : undefined;
  const last = records.at(-1)?.storage;
  const windows = input.idle.filter((w) => w.database === database);
  const idleSeconds = windows.reduce((total, w) => total + w.seconds, 0);
  const idleRate = (pick: (w: IdleWindow) => number) =>
    idleSeconds > 0 ? (1000 * windows.reduce((total, w) => total + pick(w), 0)) / idleSeconds : 0;
  const start = database === 'large' ? input.largeAtStart : undefined;
  return {
    ...summarisePhases(records),
    walBytesPerDelivery: {
      throughput: walPerDelivery(throughput),
      atRate: walPerDelivery(records.filter((r) => r.phase === 'latency')),
    },
    bytesPerDelivery:
      database === 'large'
        ? { start: bytesPer(start), end: bytesPer(last) }
        : {
            start: undefined,
            end: median(throughput.flatMap((r) => bytesPer(r.storage) ?? [])),
          },
    deliveriesHeld: { start: start?.deliveries ?? 0, end: last?.deliveries ?? 0 },
    idle: {
      seconds: idleSeconds,
      receiverMsPerSecond: idleRate((w) => w.cpu.receiver),
      postgresMsPerSecond: idleRate((w) => w.cpu.postgres),
      backendsMsPerSecond: idleRate((w) => w.cpu.postgresBackends),
    },
  };
}

function buildChecks(
  rate: number,
  empty: DatabaseSummary,
  large: DatabaseSummary,
  ratios: StoredSummary['ratios'],
): Check[] {
  const ratio = (value: number, range?: Spread) =>
    Number.isFinite(value)
      ? `${value.toFixed(2)}x${range ? ` (pairs ${range.min.toFixed(2)}-${range.max.toFixed(2)})` : ''}`
      : 'not measured';
  const failures = failureCount;
  const idle = ratios.idlePostgres.total;
  return [
    {
      label: 'throughput, large / empty (median of pairs)',
      target: `>= ${STORED_TARGETS.throughput.toFixed(2)}x`,
      actual: ratio(ratios.throughput.median, ratios.throughput),
      status: status(ratios.throughput.median, (v) => v >= STORED_TARGETS.throughput),
    },
    {
      label: `p99 at ${rate}/s, large / empty (median of pairs)`,
      target: `<= ${STORED_TARGETS.p99.toFixed(2)}x`,
      actual: ratio(ratios.p99.median, ratios.p99),
      status: status(ratios.p99.median, (v) => v <= STORED_TARGETS.p99),
    },
    {
      label: 'idle Postgres CPU, large / empty (all windows)',
      target: `<= ${STORED_TARGETS.idlePostgres.toFixed(2)}x`,
      actual: ratio(idle),
      status: status(idle, (v) => v <= STORED_TARGETS.idlePostgres),
    },
    {
      label: 'errors, timeouts and non-2xx (both)',
      target: '0',
      actual: `empty ${failures(empty)}, large ${failures(large)}`,
      status: failures(empty) + failures(large) === 0 ? 'pass' : 'fail',
    },
    {
      label: 'rows stored = 200s answered, every phase',
      target: 'equal',
      actual: `empty ${empty.rowsStored ?? 0}/${empty.answered200}, large ${large.rowsStored ?? 0}/${large.answered200}`,
      status: empty.rowsMatch === true && large.rowsMatch === true ? 'pass' : 'fail',
    },
  ];
}

function status(value: number, ok: (value: number) => boolean): Check['status'] {
  return Number.isFinite(value) ? (ok(value) ? 'pass' : 'fail') : 'n/a';
}
