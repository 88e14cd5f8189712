import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../core/load.ts';
import type { IdleWindow } from '../stored/idle.ts';
import type { StoredDatabase, StoredPhaseRecord } from '../stored/load-rounds.ts';
import { renderStored } from '../stored/report.ts';
import { summariseStored } from '../stored/summary.ts';
import { parseOptions } from '../core/options.ts';

function load(okPerSecond: number, p99: number): LoadResult {
  const ok = Math.round(okPerSecond * 10);
  return {
    elapsedSeconds: 10,
    sent: ok,
    ok,
    okPerSecond,
    statusCounts: { '200': ok },
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    reusedDeliveries: 0,
    latencyMs: { p50: 1, p99, max: 9 },
    cpu: { server: 8, generator: 2, postgresBackends: 2, postgresBackground: 1, machine: 13.5 },
    monotonicUs: { start: 0, end: 10e6 },
  };
}

/** Round by round: [throughput, p99 at the rate] for one database. */
function phases(database: StoredDatabase, rounds: [number, number][]): StoredPhaseRecord[] {
  return rounds.flatMap(([rate, p99], i) =>
    (['throughput', 'latency'] as const).map((phase) => {
      const measured = phase === 'throughput' ? load(rate, 5) : load(1000, p99);
      return {
        server: 'receiver' as const,
        database,
        round: i + 1,
        phase,
        load: measured,
        rowsStored: measured.ok,
        walBytes: measured.ok * (database === 'large' ? 6000 : 5000),
        storage: {
          deliveries: database === 'large' ? 2_000_000 + measured.ok : measured.ok,
          bytes: (database === 'large' ? 2_000_000 + measured.ok : measured.ok) * 2500,
        },
      };
    }),
  );
}

function idle(database: StoredDatabase, postgres: number[]): IdleWindow[] {
  return postgres.map((seconds, i) => ({
    database,
    round: i + 1,
    seconds: 30,
    cpu: { receiver: 0.3, postgres: seconds, postgresBackends: seconds / 2, machine: 1 },
  }));
}

const largeAtStart = { deliveries: 2_000_000, bytes: 5e9 };

describe('summariseStored', () => {
  it('when the large database keeps pace, then every target passes and the ratios are pair by pair', () => {
    const summary = summariseStored({
      records: [
        ...phases('empty', [
          [2000, 10],
          [2100, 12],
          [1900, 11],
        ]),
        ...phases('large', [
          [1980, 11],
          [1900, 12],
          [2090, 11],
        ]),
      ],
      idle: [...idle('empty', [0.2, 0.3, 0.25]), ...idle('large', [0.22, 0.3, 0.26])],
      largeAtStart,
      rate: 1000,
    });
    // Pairs 0.99, 0.905, 1.1: the median pair, not the ratio of medians (1980 / 2000).
    expect(summary.ratios.throughput.median).toBeCloseTo(0.99, 5);
    expect(summary.ratios.throughput.min).toBeCloseTo(1900 / 2100, 5);
    expect(summary.ratios.p99.median).toBeCloseTo(1.0, 5);
    expect(summary.ratios.idlePostgres.total).toBeCloseTo(0.78 / 0.75, 5);
    expect(summary.large.walBytesPerDelivery.throughput).toBeCloseTo(6000, 5);
    expect(summary.large.bytesPerDelivery.start).toBe(2500);
    expect(summary.large.idle.postgresMsPerSecond).toBeCloseTo((1000 * 0.78) / 90, 5);
    expect(summary.checks.map((c) => c.status)).toEqual(['pass', 'pass', 'pass', 'pass', 'pass']);
    expect(summary.passed).toBe(true);
  });

  it('when the large database is slower, has a longer tail and idles dearer, then those checks fail', () => {
    const summary = summariseStored({
      records: [
        ...phases('empty', [
          [2000, 10],
          [2000, 10],
        ]),
        ...phases('large', [
          [1800, 13],
          [1850, 12.5],
        ]),
      ],
      idle: [...idle('empty', [0.2, 0.2]), ...idle('large', [0.3, 0.3])],
      largeAtStart,
      rate: 1000,
    });
    expect(summary.checks.map((c) => c.status)).toEqual(['fail', 'fail', 'fail', 'pass', 'pass']);
    expect(summary.passed).toBe(false);
  });

  it('when a phase stored fewer rows than it answered 200, then the rows check fails', () => {
    const records = [...phases('empty', [[2000, 10]]), ...phases('large', [[2000, 10]])];
    records[3] = { ...records[3]!, rowsStored: 1 };
    const summary = summariseStored({
      records,
      idle: [...idle('empty', [0.2]), ...idle('large', [0.2])],
      largeAtStart,
      rate: 1000,
    });
    expect(summary.checks.find((c) => c.label.startsWith('rows'))?.status).toBe('fail');
  });

  it('when rendered, then the report shows each target next to its measured ratio', () => {
    const summary = summariseStored({
      records: [...phases('empty', [[2000, 10]]), ...phases('large', [[1980, 11]])],
      idle: [...idle('empty', [0.2]), ...idle('large', [0.22])],
      largeAtStart,
      rate: 1000,
    });
    const options = parseOptions(['--stored=2m'], {});
    if (options === 'help') throw new Error('unexpected');
    const report = renderStored({
      finishedAt: new Date('2026-11-24T00:00:00Z'),
      machine: {
        cpus: 2,
        cpuModel: 'test',
        memoryBytes: 8e9,
        kernel: 'k',
        node: 'v20',
        loadAverageAtStart: 0,
        busyPercentBeforeRun: 0,
      },
      code: { commit: 'abc1234', uncommittedChanges: false },
      postgres: { version: '15', settings: {} },
      options,
      cache: {
        name: 'benchcache_stored_2000000',
        reused: true,
        sizeBytes: 5e9,
        marker: {
          format: 1,
          deliveries: 2_000_000,
          schema: 'x',
          seededAt: '2026-11-23',
          commit: 'abc1234',
          templateDeliveries: 2000,
          seedSeconds: 200,
        },
      },
      summary,
    });
    expect(report).toMatch(/throughput.*\*\*0\.99x\*\*.*>= 0\.95x/);
    expect(report).toMatch(/p99 at 1,000\/s.*\*\*1\.10x\*\*.*<= 1\.20x/);
    expect(report).toMatch(/idle: Postgres CPU, all its processes.*\*\*1\.10x\*\*.*<= 1\.20x/);
    expect(report).toContain('2,000,000 at start');
  });
});
