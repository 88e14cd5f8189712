import { Counter, Gauge, type Registry } from 'prom-client';
import type { PruneSummary } from './prune.ts';

/**
 * The scheduled prune's metrics, registered on the service's registry. Only the instance holding
 * the lease prunes, so read them as max/sum over instances.
 */
export interface PruneMetrics {
  runs: Counter<'result'>;
  rows: Counter<'table'>;
  lastComplete: Gauge;
  observe(summary: PruneSummary, finishedAt: Date): void;
}

export function createPruneMetrics(registry: Registry): PruneMetrics {
  const runs = new Counter({
    name: 'retention_prune_runs_total',
    help: 'Scheduled prune runs: complete (nothing left that may go), partial (stopped by its budget, the next run goes on), skipped (another instance held the lease), error (crashed).',
    labelNames: ['result'],
    registers: [registry],
  });
  const rows = new Counter({
    name: 'retention_pruned_rows_total',
    help: 'Rows the prune cleared the raw request of (webhook_deliveries, quarantined_deliveries) or deleted (feed_events, recovery_*).',
    labelNames: ['table'],
    registers: [registry],
  });
  const lastComplete = new Gauge({
    name: 'retention_last_complete_timestamp_seconds',
    help: 'When this instance last finished a prune run with nothing left that may go (0: never).',
    registers: [registry],
  });
  for (const result of ['complete', 'partial', 'skipped', 'error']) runs.inc({ result }, 0);
  return {
    runs,
    rows,
    lastComplete,
    observe(summary, finishedAt) {
      runs.inc({ result: summary.complete ? 'complete' : 'partial' });
      for (const step of summary.steps) {
        if (step.rows > 0) rows.inc({ table: step.table }, step.rows);
      }
      if (summary.complete) lastComplete.set(finishedAt.getTime() / 1000);
    },
  };
}
