import { postgresCpu, type CpuUse } from './proc-stats.ts';

/**
 * What one delivery costs in CPU, split by who spent it: the server process, the Postgres
 * backends of its database, and Postgres's background processes (WAL writer, checkpointer, ...).
 * Pooled over phases (all their CPU over all their 200s), so the parts add up to the total.
 * It moves much less than deliveries/s when other work shares the machine.
 */

export interface CpuPerDelivery {
  /** Milliseconds of CPU per delivery answered 200. */
  server: number;
  postgresBackends: number;
  postgresBackground: number;
  /** Backends plus background. */
  postgres: number;
  /** Server plus Postgres. */
  total: number;
  /** The 200s it is divided by (0: nothing answered, every figure 0). */
  deliveries: number;
}

export function cpuPerDelivery(
  phases: readonly { cpu: CpuUse; answered200: number }[],
): CpuPerDelivery {
  const deliveries = phases.reduce((total, phase) => total + phase.answered200, 0);
  const perDelivery = (pick: (cpu: CpuUse) => number) =>
    deliveries === 0
      ? 0
      : (1000 * phases.reduce((total, phase) => total + pick(phase.cpu), 0)) / deliveries;
  const server = perDelivery((cpu) => cpu.server);
  const postgres = perDelivery(postgresCpu);
  return {
    server,
    postgresBackends: perDelivery((cpu) => cpu.postgresBackends),
    postgresBackground: perDelivery((cpu) => cpu.postgresBackground),
    postgres,
    total: server + postgres,
    deliveries,
  };
}
