import { describe, expect, it } from 'vitest';
import { cpuPerDelivery } from '../core/summary.ts';

const cpu = (server: number, backends: number, background: number) => ({
  server,
  generator: 5,
  postgresBackends: backends,
  postgresBackground: background,
  machine: 100,
});

describe('cpuPerDelivery', () => {
  it('when phases differ in size, then CPU is pooled over all their 200s and the parts add up', () => {
    const result = cpuPerDelivery([
      { cpu: cpu(1, 0.5, 0.1), answered200: 1000 },
      { cpu: cpu(3, 0.5, 0.3), answered200: 3000 },
    ]);
    // 4 s of server CPU over 4,000 deliveries: 1 ms each; the load generator is not counted.
    expect(result.server).toBeCloseTo(1);
    expect(result.postgresBackends).toBeCloseTo(0.25);
    expect(result.postgresBackground).toBeCloseTo(0.1);
    expect(result.postgres).toBeCloseTo(0.35);
    expect(result.total).toBeCloseTo(1.35);
    expect(result.deliveries).toBe(4000);
  });

  it('when nothing was answered, then every figure is 0 rather than infinite', () => {
    expect(cpuPerDelivery([{ cpu: cpu(1, 1, 1), answered200: 0 }])).toEqual({
      server: 0,
      postgresBackends: 0,
      postgresBackground: 0,
      postgres: 0,
      total: 0,
      deliveries: 0,
    });
  });
});
