import { describe, expect, it } from 'vitest';
import { renderReport, type RunFacts } from '../report.ts';
import type { RoundRecord } from '../rounds.ts';
import { summarise } from '../summary.ts';

const FACTS: RunFacts = {
  startedAt: new Date('2026-11-29T09:00:00Z'),
  commit: 'abc1234',
  command: 'npm run bench -- --rounds 2',
  rounds: 2,
  duration: 10,
  connections: 32,
  machine: { cpus: 2, cpuModel: 'AMD EPYC', node: 'v20.20.2', loadAverage: [0.5, 0.7] },
  postgres: 'Postgres 15.20 (synchronous_commit=on, fsync=on)',
  runtime: 'MALLOC_ARENA_MAX=2 node --max-semi-space-size=2',
  profiled: false,
  feedEndpoints: 0,
};

function record(server: RoundRecord['server'], round: number, rate: number): RoundRecord {
  const ok = rate * 10;
  return {
    server,
    round,
    load: {
      elapsedSeconds: 10,
      sent: ok,
      ok,
      okPerSecond: rate,
      statusCounts: { '200': ok },
      non2xx: 0,
      errors: 0,
      timeouts: 0,
      reusedDeliveries: 0,
      latencyMs: { p50: 2, p99: 12.5, max: 40 },
      serverCpuSeconds: 9,
    },
    ...(server !== 'bare' && { rowsStored: ok }),
    peakRssBytes: server === 'receiver' ? 153.1e6 : 100e6,
  };
}

describe('renderReport', () => {
  it('when rendered, then each server shows its spread over the rounds, the ratios round by round and the targets', () => {
    const summary = summarise(
      [
        record('receiver', 1, 2000),
        record('hand-written', 1, 2500),
        record('receiver', 2, 2400),
        record('hand-written', 2, 3000),
      ],
      { receiver: 84.9e6, 'hand-written': 63.6e6 },
    );
    const report = renderReport(FACTS, summary);
    expect(report).toContain('receiver at abc1234: `npm run bench -- --rounds 2`');
    expect(report).toContain('`MALLOC_ARENA_MAX=2 node --max-semi-space-size=2`');
    expect(report).toMatch(
      /\| receiver +\| +2,200 \(2,000-2,400\) \| +2\.00 \| +12\.50 \| +0\.412 \(0\.375-0\.450\) \| +84\.9 MB \| +153\.1 MB \|/,
    );
    expect(report).toContain(
      '**Receiver / hand-written**, round by round: throughput 0.80x, CPU per delivery 1.25x.',
    );
    expect(report).toContain('**Targets**: not all met');
    expect(report).toMatch(
      /\| receiver peak memory \(VmHWM\) +\| +< 150 MB \| +153\.1 MB \| +FAIL \|/,
    );
  });

  it('when profiled, then the report says so and leaves the targets out', () => {
    const summary = summarise([record('receiver', 1, 2000)], { receiver: 84.9e6 });
    const report = renderReport({ ...FACTS, rounds: 1, profiled: true }, summary);
    expect(report).toContain('under node --cpu-prof');
    expect(report).not.toContain('Targets');
  });

  it('when the feed had endpoints, then the heading says how many', () => {
    const summary = summarise([record('receiver', 1, 2000)], { receiver: 84.9e6 });
    expect(renderReport(FACTS, summary)).not.toContain('endpoint');
    expect(renderReport({ ...FACTS, feedEndpoints: 4 }, summary)).toContain(
      "The receiver's feed hands every event to 4 endpoint(s), each a POST to a sink in the bench.",
    );
  });
});
