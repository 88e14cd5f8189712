import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../core/load.ts';
import type { ServerName } from '../core/options.ts';
import type { PhaseRecord } from '../core/rounds.ts';
import { runtimeOf } from '../core/runtime.ts';
import { summarise } from '../summary.ts';

function load(overrides: Partial<LoadResult> & { okPerSecond: number; p99?: number }): LoadResult {
  const ok = Math.round(overrides.okPerSecond * 10);
  return {
    elapsedSeconds: 10,
    sent: ok,
    ok,
    statusCounts: { '200': ok },
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    reusedDeliveries: 0,
    latencyMs: { p50: 1, p99: overrides.p99 ?? 5, max: 9 },
    cpu: { server: 8, generator: 2, postgresBackends: 2, postgresBackground: 1, machine: 15 },
    monotonicUs: { start: 0, end: 10e6 },
    ...overrides,
  };
}

/** One round per entry: a throughput phase at that rate and a latency phase at 1,000/s. */
function phases(server: ServerName, rates: number[], extra: Partial<PhaseRecord> = {}) {
  return rates.flatMap((rate, i): PhaseRecord[] => {
    const throughput = load({ okPerSecond: rate });
    const latency = load({ okPerSecond: 1000 });
    const stores = server !== 'bare';
    return [
      {
        server,
        round: i + 1,
        phase: 'throughput',
        load: throughput,
        ...(stores && { rowsStored: throughput.ok }),
        ...extra,
      },
      {
        server,
        round: i + 1,
        phase: 'latency',
        load: latency,
        ...(stores && { rowsStored: latency.ok }),
        ...extra,
      },
    ];
  });
}

const ALL = { rate: 1000, only: ['receiver', 'hand-written', 'bare'] as ServerName[] };
const MEMORY = {
  receiver: { startRssBytes: 80e6, peakRssBytes: 120e6 },
  'hand-written': { startRssBytes: 70e6, peakRssBytes: 90e6 },
  bare: { startRssBytes: 60e6, peakRssBytes: 70e6 },
};

const PRODUCTION = runtimeOf(['--max-semi-space-size=2'], {
  MALLOC_ARENA_MAX: '2',
  NODE_ENV: 'production',
});
const SAME_RUNTIME = { receiver: PRODUCTION, 'hand-written': PRODUCTION, bare: PRODUCTION };

const statusOf = (summary: ReturnType<typeof summarise>, label: string) =>
  summary.checks.find((check) => check.label.startsWith(label))?.status;

describe('summarise', () => {
  it('when the receiver beats both targets, then the ratios use medians and every check passes', () => {
    const records = [
      ...phases('receiver', [1300, 5000, 1250]),
      ...phases('hand-written', [1000, 1000, 100]),
      ...phases('bare', [1700, 1800, 1750]),
    ];
    const summary = summarise(ALL, records, MEMORY, SAME_RUNTIME);
    expect(summary.ratios.receiverOverHandWritten).toBeCloseTo(1.3);
    expect(summary.ratios.receiverOverBare).toBeCloseTo(1300 / 1750);
    expect(summary.checks.map((check) => check.status)).toEqual(Array(6).fill('pass'));
    expect(summary.checks.find((c) => c.label.startsWith('receiver / hand-written'))?.actual).toBe(
      '1.30x (aim reached)',
    );
    expect(summary.passed).toBe(true);
  });

  it('when the receiver is slower than the hand-written one, then that check fails', () => {
    const records = [
      ...phases('receiver', [900]),
      ...phases('hand-written', [1000]),
      ...phases('bare', [1000]),
    ];
    const summary = summarise(ALL, records, MEMORY);
    expect(statusOf(summary, 'receiver / hand-written')).toBe('fail');
    expect(summary.passed).toBe(false);
  });

  it('when a phase stored fewer rows than it answered 200, then the rows check fails', () => {
    const records = [...phases('receiver', [1000]), ...phases('hand-written', [800])];
    const first = records[0];
    if (first) first.rowsStored = (first.rowsStored ?? 0) - 1;
    const summary = summarise({ rate: 1000, only: ['receiver', 'hand-written'] }, records, MEMORY);
    expect(statusOf(summary, 'rows stored')).toBe('fail');
  });

  it('when any server answered a non-2xx, then the errors check fails and names it', () => {
    const records = [
      ...phases('receiver', [1300]),
      ...phases('bare', [1500]).map((record) => ({
        ...record,
        load: { ...record.load, non2xx: 3 },
      })),
    ];
    const summary = summarise({ rate: 1000, only: ['receiver', 'bare'] }, records, MEMORY);
    const check = summary.checks.find((c) => c.label.startsWith('errors'));
    expect(check).toMatchObject({ status: 'fail', actual: 'bare: 6' });
  });

  it('when p99 or memory are over target, then those checks fail', () => {
    const records = phases('receiver', [1000]).map((record) => ({
      ...record,
      load: { ...record.load, latencyMs: { ...record.load.latencyMs, p99: 15.5 } },
    }));
    const summary = summarise({ rate: 1000, only: ['receiver'] }, records, {
      receiver: { startRssBytes: 1, peakRssBytes: 150e6 },
    });
    expect(statusOf(summary, 'receiver p99')).toBe('fail');
    expect(statusOf(summary, 'receiver peak memory')).toBe('fail');
  });

  it('when a server was left out with --only, then the checks that need it are n/a', () => {
    const summary = summarise(
      { rate: 1000, only: ['receiver'] },
      phases('receiver', [1000]),
      MEMORY,
      { receiver: PRODUCTION },
    );
    expect(statusOf(summary, 'receiver / hand-written')).toBe('n/a');
    expect(statusOf(summary, 'same Node flags')).toBe('n/a');
    expect(summary.passed).toBe(true);
  });

  it('when the receiver is 1.1x the hand-written one, then the 1.0x target passes short of the 1.2x aim', () => {
    const records = [...phases('receiver', [1100]), ...phases('hand-written', [1000])];
    const summary = summarise({ rate: 1000, only: ['receiver', 'hand-written'] }, records, MEMORY);
    const check = summary.checks.find((c) => c.label.startsWith('receiver / hand-written'));
    expect(check).toMatchObject({ status: 'pass', actual: '1.10x (aim not reached)' });
  });

  it('when the receiver is far below bare, then nothing fails: bare is the ceiling, not a target', () => {
    const records = [...phases('receiver', [1300]), ...phases('bare', [13_000])];
    const summary = summarise({ rate: 1000, only: ['receiver', 'bare'] }, records, MEMORY);
    expect(summary.ratios.receiverOverBare).toBeCloseTo(0.1);
    expect(summary.checks.some((c) => c.label.includes('bare'))).toBe(false);
    expect(summary.passed).toBe(true);
  });

  it('when one server ran with other Node flags, then the parity check fails and names the difference', () => {
    const records = [...phases('receiver', [1300]), ...phases('hand-written', [1000])];
    const summary = summarise({ rate: 1000, only: ['receiver', 'hand-written'] }, records, MEMORY, {
      receiver: PRODUCTION,
      'hand-written': runtimeOf([], { NODE_ENV: 'production' }),
    });
    expect(statusOf(summary, 'same Node flags')).toBe('fail');
    expect(summary.runtimeDifferences.join(' ')).toContain('--max-semi-space-size=2');
    expect(summary.passed).toBe(false);
  });

  it('when CPU is measured, then CPU per delivery splits server, Postgres backends and background', () => {
    // Every phase: 8 s server, 2 s backends, 1 s background, for 10 x rate deliveries.
    const summary = summarise(
      { rate: 1000, only: ['receiver'] },
      phases('receiver', [1000, 4000]),
      MEMORY,
    );
    const [receiver] = summary.servers;
    // Throughput phases: 16 s of server CPU over 10,000 + 40,000 deliveries.
    expect(receiver?.cpuMsPerDelivery.throughput).toMatchObject({ deliveries: 50_000 });
    expect(receiver?.cpuMsPerDelivery.throughput.server).toBeCloseTo(16_000 / 50_000);
    expect(receiver?.cpuMsPerDelivery.throughput.postgresBackends).toBeCloseTo(4_000 / 50_000);
    expect(receiver?.cpuMsPerDelivery.throughput.postgresBackground).toBeCloseTo(2_000 / 50_000);
    expect(receiver?.cpuMsPerDelivery.throughput.total).toBeCloseTo(22_000 / 50_000);
    // Fixed-rate phases: 1,000/s for 10 s, twice.
    expect(receiver?.cpuMsPerDelivery.atRate.total).toBeCloseTo(22_000 / 20_000);
  });
});
