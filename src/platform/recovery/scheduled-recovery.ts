import type { Registry } from 'prom-client';
import type { Logger } from '../../lib/logger.ts';
import type { ProviderClientConfig } from '../client/settings.ts';
import { todayAndYesterday } from '../../lib/sydney-time.ts';
import { withProviderTables } from '../storage/tables.ts';
import type { Db } from '../../lib/database/database.ts';
import { createRecoveryMetrics } from './recovery-metrics.ts';
import { createRecoveryScheduler, type RecoveryScheduler } from './recovery-scheduler.ts';
import type { RecoveryScheduleConfig } from './settings.ts';

/**
 * The service's scheduled recovery (today and yesterday, Sydney days), or undefined when it is
 * off: RECOVERY_INTERVAL_MS=0, or no PROVIDER_API_KEY to call the platform with.
 */
export async function startScheduledRecovery(deps: {
  config: ProviderClientConfig & RecoveryScheduleConfig;
  db: Db;
  logger: Logger;
  registry: Registry;
}): Promise<RecoveryScheduler | undefined> {
  const { config, logger } = deps;
  if (config.recoveryIntervalMs === 0 || !config.provider.apiKey) return undefined;
  // The provider client and the run (its request and response schemas, csv-parse for the
  // reports) are loaded only now: a receiver that never calls the platform does not hold them.
  const [{ providerClientFromConfig }, { runRecovery }] = await Promise.all([
    import('../client/client-from-config.ts'),
    import('./run-recovery.ts'),
  ]);
  const client = providerClientFromConfig(config.provider, logger);
  const recoveryLogger = logger.child({ component: 'recovery' });
  const scheduler = createRecoveryScheduler({
    db: deps.db,
    intervalMs: config.recoveryIntervalMs,
    logger: recoveryLogger,
    metrics: createRecoveryMetrics(deps.registry),
    run: (lease) =>
      runRecovery({
        lease,
        db: withProviderTables(deps.db),
        client,
        logger: recoveryLogger,
        days: todayAndYesterday(Date.now()),
        // The bearer sign-in needs the mAccount; without it PayTo is skipped rather than failing.
        payto: config.provider.mAccount !== undefined,
      }),
  });
  scheduler.start();
  logger.info({ intervalMs: config.recoveryIntervalMs }, 'scheduled recovery on');
  return scheduler;
}
