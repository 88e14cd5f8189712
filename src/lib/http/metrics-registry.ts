import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

interface PoolStats {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** The log stream's own accounting (see log-stream.ts). */
interface LogStats {
  droppedLines(): number;
  bufferedBytes(): number;
}

export interface MetricsRegistryOptions {
  pool?: PoolStats;
  log?: LogStats;
}

/**
 * The process's metrics registry (one per process, passed to whoever registers on it; nothing is
 * global): Node's default metrics, the database pool's and the log stream's. Each module adds
 * its own (the receiver's deliveries, the feed's relay, recovery, retention).
 */
export function createMetricsRegistry(options: MetricsRegistryOptions = {}): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const pool = options.pool;
  if (pool) {
    const gauge = (name: string, help: string, read: (p: PoolStats) => number) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(read(pool));
        },
      });
    gauge('db_pool_connections', 'Connections open in the pool.', (p) => p.totalCount);
    gauge('db_pool_idle_connections', 'Open connections not in use.', (p) => p.idleCount);
    gauge('db_pool_waiting_requests', 'Queries waiting for a connection.', (p) => p.waitingCount);
  }
  const log = options.log;
  if (log) {
    new Counter({
      name: 'log_lines_dropped_total',
      help: 'Log lines dropped because stdout was not keeping up and the log buffer was full.',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(log.droppedLines());
      },
    });
    new Gauge({
      name: 'log_buffer_bytes',
      help: 'Log bytes waiting to be written to stdout.',
      registers: [registry],
      collect() {
        this.set(log.bufferedBytes());
      },
    });
  }
  return registry;
}
