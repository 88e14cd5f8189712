import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../load.ts';
import type { ServerName } from '../options.ts';
import { cpuMsPerDelivery, type RoundRecord } from '../rounds.ts';
import { summarise } from '../summary.ts';

/** One round of ~10 s at `rate`, `cpuSeconds` of the server's CPU. */
function load(rate: number, cpuSeconds = 8, overrides: Partial<LoadResult> = {}): LoadResult {
  const ok = Math.round(rate * 10);
  return {
    elapsedSeconds: 10,
    sent: ok,
    ok,
    okPerSecond: rate,
    statusCounts: { '200': ok },
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    reusedDeliveries: 0,
    latencyMs: { p50: 1, p99: 5, max: 9 },
    serverCpuSeconds: cpuSeconds,
    ...overrides,
  };
}

/** One record per rate, rounds numbered from 1; storing servers store what they answered. */
function rounds(server: ServerName, rates: number[], peakRssBytes = 100e6): RoundRecord[] {
  return rates.map((rate, i) => {
    const result = load(rate);
    return {
      server,
      round: i + 1,
      load: result,
      ...(server !== 'bare' && { rowsStored: result.ok }),
      peakRssBytes,
    };
  });
}

const START_RSS = { receiver: 80e6, 'hand-written': 60e6, bare: 55e6 };

const statusOf = (summary: ReturnType<typeof summarise>, label: string) =>
  summary.checks.find((check) => check.label.startsWith(label))?.status;

describe('summarise', () => {
  it('when rounds are paired, then each ratio is taken round by round and spread as min, median and max', () => {
    const summary = summarise(
      [
        ...rounds('receiver', [1300, 5000, 1250]),
        ...rounds('hand-written', [1000, 1000, 500]),
        ...rounds('bare', [2600, 2500, 2500]),
      ],
      START_RSS,
    );
    // Round by round: 1.3, 5.0 and 2.5; not the ratio of the medians (1250 / 1000).
    expect(summary.receiverOver.handWritten?.throughput).toEqual({ min: 1.3, median: 2.5, max: 5 });
    expect(summary.receiverOver.bare?.throughput.median).toBeCloseTo(0.5);
    const receiver = summary.servers.find((s) => s.server === 'receiver');
    expect(receiver?.throughput).toEqual({ min: 1250, median: 1300, max: 5000 });
    expect(receiver).toMatchObject({ startRssBytes: 80e6, peakRssBytes: 100e6, failures: 0 });
    expect(summary.checks.map((check) => check.status)).toEqual(['pass', 'pass', 'pass', 'pass']);
    expect(summary.passed).toBe(true);
  });

  it('when CPU is measured, then CPU per delivery is the server process CPU over its 200s, round by round', () => {
    const records = [
      { ...rounds('receiver', [1000])[0], load: load(1000, 4) },
      { ...rounds('hand-written', [2000])[0], load: load(2000, 4) },
    ] as RoundRecord[];
    const summary = summarise(records, START_RSS);
    // 4 s over 10,000 deliveries, 4 s over 20,000: 0.4 ms against 0.2 ms.
    expect(summary.servers[0]?.cpuMsPerDelivery.median).toBeCloseTo(0.4);
    expect(summary.servers[1]?.cpuMsPerDelivery.median).toBeCloseTo(0.2);
    expect(summary.receiverOver.handWritten?.cpuMsPerDelivery.median).toBeCloseTo(2);
  });

  it('when the receiver is slower than the hand-written one, then that check fails', () => {
    const summary = summarise(
      [...rounds('receiver', [900]), ...rounds('hand-written', [1000]), ...rounds('bare', [1000])],
      START_RSS,
    );
    expect(statusOf(summary, 'receiver / hand-written')).toBe('fail');
    expect(summary.passed).toBe(false);
  });

  it('when the receiver is 1.1x the hand-written one, then the 1.0x target passes short of the 1.2x aim', () => {
    const summary = summarise(
      [...rounds('receiver', [1100]), ...rounds('hand-written', [1000])],
      START_RSS,
    );
    const check = summary.checks.find((c) => c.label.startsWith('receiver / hand-written'));
    expect(check).toMatchObject({ status: 'pass', actual: '1.10x (aim not reached)' });
  });

  it('when a phase stored fewer rows than it answered 200, then the rows check fails', () => {
    const records = [...rounds('receiver', [1000, 1000]), ...rounds('hand-written', [800, 800])];
    const second = records[1];
    if (second) second.rowsStored = (second.rowsStored ?? 0) - 1;
    const summary = summarise(records, START_RSS);
    expect(statusOf(summary, 'rows stored')).toBe('fail');
  });

  it('when any server answered a non-2xx, then the errors check fails and names it', () => {
    const records = [
      ...rounds('receiver', [1300]),
      ...rounds('bare', [1500, 1500]).map((record) => ({
        ...record,
        load: { ...record.load, non2xx: 3 },
      })),
    ];
    const check = summarise(records, START_RSS).checks.find((c) => c.label.startsWith('errors'));
    expect(check).toMatchObject({ status: 'fail', actual: 'bare: 6' });
  });

  it("when the receiver's peak memory is over target, then that check fails", () => {
    const [first] = rounds('receiver', [1000], 120e6);
    const [second] = rounds('receiver', [1000], 150e6);
    if (!first || !second) throw new Error('no rounds');
    const summary = summarise([first, { ...second, round: 2 }], START_RSS);
    expect(summary.servers[0]?.peakRssBytes).toBe(150e6);
    expect(statusOf(summary, 'receiver peak memory')).toBe('fail');
  });

  it('when the receiver is far below bare, then nothing fails: bare is the ceiling, not a target', () => {
    const summary = summarise(
      [...rounds('receiver', [1300]), ...rounds('bare', [13_000])],
      START_RSS,
    );
    expect(summary.receiverOver.bare?.throughput.median).toBeCloseTo(0.1);
    expect(summary.checks.some((c) => c.label.includes('bare'))).toBe(false);
    expect(summary.passed).toBe(true);
  });

  it('when only the receiver ran (--profile), then the checks that need the others are n/a', () => {
    const summary = summarise(rounds('receiver', [1000]), START_RSS);
    expect(summary.receiverOver).toEqual({});
    expect(statusOf(summary, 'receiver / hand-written')).toBe('n/a');
    expect(summary.passed).toBe(true);
  });
});

describe('cpuMsPerDelivery', () => {
  it('when nothing was answered, then every figure is 0 rather than infinite', () => {
    expect(cpuMsPerDelivery({ serverCpuSeconds: 1, ok: 0 })).toBe(0);
    expect(cpuMsPerDelivery({ serverCpuSeconds: 1, ok: 4000 })).toBeCloseTo(0.25);
  });
});
